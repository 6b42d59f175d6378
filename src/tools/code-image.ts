/** tools/code-image: highlighted code in a dark editor window; the language is given or guessed from the file name. */
import { checkLineCount, normaliseCode, renderCodeCard } from '../render/code-card.js';
import { highlight, languageOf } from '../render/highlight.js';
import { publishPng } from '../render/publish.js';
import type { ToolFactory } from './types.js';

export const codeImage: ToolFactory = (deps) => ({
  async run(input) {
    const title = String(input.title);
    const language = languageOf(input.language, title);
    const code = normaliseCode(String(input.code));
    checkLineCount(code);
    const rendered = await renderCodeCard(title, await highlight(code, language));
    return { ...(await publishPng(deps.media, rendered)), language };
  },
});
