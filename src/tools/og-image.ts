/** tools/og-image: a 1200×630 Open Graph card with a title and subtitle (theme light or dark). */
import { OG_SIZE } from '../render/presets.js';
import { titleCardTool } from './cards/title-tool.js';
import type { ToolFactory } from './types.js';

export const ogImage: ToolFactory = (deps) =>
  titleCardTool(deps, { size: () => OG_SIZE, defaultTheme: 'dark' });
