/** The input schema every recipe shares, built from the recipe (its default models, whether it takes a prompt). */
import type { JsonSchema, RecipeEntry } from './types.js';

type RecipeShape = Pick<RecipeEntry, 'randomCharacter' | 'image' | 'video'>;

export function recipeInputSchema(recipe: RecipeShape): JsonSchema {
  const properties: Record<string, JsonSchema> = {
    prompt: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: recipe.randomCharacter
        ? 'Optional: a theme added to the random character (who it is stays random)'
        : 'What the image shows; the video animates it',
    },
    imageModel: {
      type: 'string',
      minLength: 1,
      description: `A text-to-image model id to draw the image with (default ${recipe.image.model})`,
    },
    videoModel: {
      type: 'string',
      minLength: 1,
      description: `An image-to-video model id to animate it with (default ${recipe.video.model})`,
    },
    motionPrompt: {
      type: 'string',
      minLength: 1,
      maxLength: 2000,
      description: 'How the picture moves (default: built from the prompt)',
    },
    duration: {
      type: 'integer',
      minimum: 1,
      maximum: 60,
      description: 'Video length in seconds; one the video model offers',
    },
    resolution: {
      type: 'string',
      minLength: 1,
      description: 'Video resolution, e.g. 720p or 1080p; one the video model offers',
    },
  };
  return {
    type: 'object',
    properties,
    ...(recipe.randomCharacter ? {} : { required: ['prompt'] }),
  };
}
