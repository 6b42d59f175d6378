/** tools/card: a title card sized by preset (og, instagram-square, story, linkedin, podcast). */
import { CARD_PRESETS, type CardPreset } from '../render/presets.js';
import { titleCardTool } from './cards/title-tool.js';
import type { ToolFactory } from './types.js';

export const card: ToolFactory = (deps) =>
  titleCardTool(deps, {
    // The catalog's enum has checked the preset.
    size: (input) => CARD_PRESETS[input.preset as CardPreset],
    defaultTheme: 'dark',
  });
