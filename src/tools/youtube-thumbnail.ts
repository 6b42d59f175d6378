/** tools/youtube-thumbnail: a 1280×720 title card, optionally over a background image, in an accent colour. */
import { YOUTUBE_SIZE } from '../render/presets.js';
import { titleCardTool } from './cards/title-tool.js';
import type { ToolFactory } from './types.js';

export const youtubeThumbnail: ToolFactory = (deps) =>
  titleCardTool(deps, { size: () => YOUTUBE_SIZE, defaultTheme: 'dark' });
