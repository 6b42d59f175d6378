/** tools/code-image: highlighted code in a dark editor window; the language is given or guessed from the file name. */
import { checkLineCount, normaliseCode } from '../render/code-card.js';
import { drawCard } from '../render/draw.js';
import { languageOf } from '../render/highlight.js';
import { publishPng } from '../render/publish.js';
import { workerPool } from '../workers/pool.js';
import type { ToolFactory } from './types.js';

export const codeImage: ToolFactory = (deps) => {
  const pool = workerPool(deps.config.workers);
  return {
    preflight: () => pool.admit(),
    async run(input, call) {
      const title = String(input.title);
      const language = languageOf(input.language, title);
      const code = normaliseCode(String(input.code));
      checkLineCount(code);
      // Highlighting, layout and encoding all run on the worker.
      const rendered = await drawCard(pool, { kind: 'code', title, code, language }, call.signal);
      return { ...(await publishPng(deps.media, rendered)), language };
    },
  };
};
