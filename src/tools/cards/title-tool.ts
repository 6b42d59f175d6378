/**
 * The tools that draw a title card (og-image, card, youtube-thumbnail): read the optional background through the
 * safe fetcher, draw, store the PNG. Each tool module only says its size and which inputs it reads.
 */

import { imageMaxBytes, rendererFetcher } from '../../render/fetcher.js';
import { publishPng } from '../../render/publish.js';
import { fetchImage } from '../../render/remote-image.js';
import { accentOf, type Theme, themeOf } from '../../render/themes.js';
import { renderTitleCard } from '../../render/title-card.js';
import type { Tool, ToolDeps } from '../types.js';

export interface TitleToolSpec {
  size(input: Record<string, unknown>): { width: number; height: number };
  /** The theme when the caller names none. */
  defaultTheme: Theme['name'];
}

export function titleCardTool(deps: ToolDeps, spec: TitleToolSpec): Tool {
  const fetcher = rendererFetcher(deps.config);
  return {
    async run(input, call) {
      const theme = themeOf(input, spec.defaultTheme);
      const background =
        typeof input.background === 'string'
          ? await fetchImage(fetcher, input.background, 'background', imageMaxBytes(deps.config), call.signal)
          : undefined;
      const rendered = await renderTitleCard({
        ...spec.size(input),
        title: String(input.title),
        subtitle: String(input.subtitle),
        theme,
        accent: accentOf(input, theme),
        background,
      });
      return { ...(await publishPng(deps.media, rendered)), theme: theme.name };
    },
  };
}
