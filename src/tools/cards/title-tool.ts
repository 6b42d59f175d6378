/**
 * The tools that draw a title card (og-image, card, youtube-thumbnail): read the optional background through the
 * safe fetcher, draw, store the PNG. Each tool module only says its size and which inputs it reads.
 */

import { drawCard } from '../../render/draw.js';
import { imageMaxBytes, rendererFetcher } from '../../render/fetcher.js';
import { publishPng } from '../../render/publish.js';
import { fetchImage } from '../../render/remote-image.js';
import { accentOf, type Theme, themeOf } from '../../render/themes.js';
import { workerPool } from '../../workers/pool.js';
import type { Tool, ToolDeps } from '../types.js';

export interface TitleToolSpec {
  size(input: Record<string, unknown>): { width: number; height: number };
  /** The theme when the caller names none. */
  defaultTheme: Theme['name'];
}

export function titleCardTool(deps: ToolDeps, spec: TitleToolSpec): Tool {
  const fetcher = rendererFetcher(deps.config);
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const theme = themeOf(input, spec.defaultTheme);
      const background =
        typeof input.background === 'string'
          ? await fetchImage(fetcher, input.background, 'background', imageMaxBytes(deps.config), call.signal)
          : undefined;
      const card = {
        ...spec.size(input),
        title: String(input.title),
        subtitle: String(input.subtitle),
        theme,
        accent: accentOf(input, theme),
        background,
      };
      const rendered = await drawCard(pool, { kind: 'title', card }, call.signal);
      return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
    },
  };
}
