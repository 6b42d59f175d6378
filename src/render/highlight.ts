/**
 * Syntax highlighting for code-image with shiki (TextMate grammars, VS Code's GitHub Dark theme): the language
 * named by the caller (a shiki id or alias), else the one the file name's extension or name implies, else plain
 * text. One highlighter, grammars loaded on first use, on shiki's JavaScript regex engine (no WebAssembly to load:
 * the Oniguruma engine's inlined WASM is read through the global Response, which other libraries may replace).
 * shiki loads with the first card, not at start.
 */
import type { createHighlighter, ThemedToken } from 'shiki';
// The language table alone (a map of loaders): validating a call's language must not load shiki itself.
import { type BundledLanguage, bundledLanguages } from 'shiki/langs';
import { invalidInput } from '../http/errors.js';

export const CODE_THEME = 'github-dark';

type Highlighter = Awaited<ReturnType<typeof createHighlighter>>;
let highlighter: Promise<Highlighter> | undefined;

function isLanguage(name: string): name is BundledLanguage {
  return Object.hasOwn(bundledLanguages, name);
}

/** The language to highlight with: `language` if given (a 400 naming it when unknown), else guessed from `title`. */
export function languageOf(language: unknown, title: string): BundledLanguage | 'text' {
  if (typeof language === 'string' && language.trim() !== '') {
    const name = language.trim().toLowerCase();
    if (name === 'text' || name === 'plaintext' || name === 'txt') return 'text';
    if (isLanguage(name)) return name;
    throw invalidInput([{ field: 'language', message: `unknown language "${language}"` }]);
  }
  const base = title.trim().toLowerCase().split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  const ext = dot >= 0 ? base.slice(dot + 1) : '';
  if (ext && isLanguage(ext)) return ext;
  if (isLanguage(base)) return base;
  return 'text';
}

export interface Highlighted {
  lines: ThemedToken[][];
  foreground: string;
  background: string;
}

export async function highlight(code: string, language: BundledLanguage | 'text'): Promise<Highlighted> {
  highlighter ??= import('shiki').then(({ createHighlighter, createJavaScriptRegexEngine }) =>
    createHighlighter({
      themes: [CODE_THEME],
      langs: [],
      engine: createJavaScriptRegexEngine({ forgiving: true }),
    }),
  );
  const h = await highlighter;
  if (language !== 'text' && !h.getLoadedLanguages().includes(language)) {
    await h.loadLanguage(language);
    // shiki gives up on a line whose tokenizing outlasts its time limit (500 ms) and colours the rest of it as one
    // token. A grammar's first use compiles its rules' regular expressions as they are met, which on a busy machine
    // can outlast that on the first line: a first pass, thrown away, compiles them, so even the first card of a
    // language is coloured in full (the limit stays, against a line that is slow to match for good).
    h.codeToTokens(code, { lang: language, theme: CODE_THEME });
  }
  const result = h.codeToTokens(code, { lang: language, theme: CODE_THEME });
  return {
    lines: result.tokens,
    foreground: result.fg ?? '#e1e4e8',
    background: result.bg ?? '#24292e',
  };
}
