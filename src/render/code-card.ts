/**
 * The code image: a dark editor window (title bar with three dots and the file name) holding the highlighted
 * code in JetBrains Mono. The window is as wide as the longest line needs (800..2400 px; longer lines wrap) and
 * as tall as the code; the font shrinks from 26 px to 12 px as lines grow, and at most MAX_CODE_LINES are drawn.
 */
import { invalidInput } from '../http/errors.js';
import { type Child, div, type El, text } from './el.js';
import { fonts, MONO, SANS } from './fonts.js';
import type { Highlighted } from './highlight.js';
import { type RenderedPng, renderPng } from './png.js';

export const MAX_CODE_LINES = 400;
/** JetBrains Mono's advance width is 0.6 em. */
const ADVANCE = 0.6;

/** Tabs as two spaces; trailing blank lines dropped. */
export function normaliseCode(code: string): string {
  return code.replace(/\t/g, '  ').replace(/\s+$/, '');
}

export function checkLineCount(code: string): void {
  const lines = code.split('\n').length;
  if (lines > MAX_CODE_LINES)
    throw invalidInput([{ field: 'code', message: `${lines} lines; at most ${MAX_CODE_LINES} are drawn` }]);
}

export async function renderCodeCard(title: string, code: Highlighted): Promise<RenderedPng> {
  const count = Math.max(1, code.lines.length);
  const fontSize = Math.max(12, Math.min(26, Math.floor(26 * Math.sqrt(30 / Math.max(count, 30)))));
  const longest = code.lines.reduce(
    (m, l) =>
      Math.max(
        m,
        l.reduce((n, t) => n + t.content.length, 0),
      ),
    0,
  );
  const pad = 48;
  const codePad = 36;
  const width = Math.max(
    800,
    Math.min(2400, Math.ceil(longest * fontSize * ADVANCE) + 2 * (pad + codePad) + 8),
  );
  // The window's 1 px borders, and a little slack for rounding.
  const inner = width - 2 * pad - 2 * codePad - 4;
  const line = (tokens: Highlighted['lines'][number]): El => {
    const spans: Child[] = tokens.map((t) =>
      // satori drops whitespace-only spans and leading spaces even with white-space: pre; no-break spaces are
      // drawn as the same monospace advance and kept.
      text({ color: t.color ?? code.foreground, wordBreak: 'break-all' }, t.content.replace(/ /g, '\u00a0')),
    );
    return div(
      { flexWrap: 'wrap', width: inner, minHeight: Math.round(fontSize * 1.5) },
      ...(spans.length ? spans : [' ']),
    );
  };
  const dot = (color: string) =>
    div({ width: 16, height: 16, borderRadius: 8, backgroundColor: color, marginRight: 10 });
  const window = div(
    {
      flexDirection: 'column',
      width: width - 2 * pad,
      backgroundColor: code.background,
      borderRadius: 16,
      border: '1px solid #3b4048',
    },
    div(
      {
        alignItems: 'center',
        height: 56,
        paddingLeft: 22,
        paddingRight: 22,
        borderBottom: '1px solid #3b4048',
      },
      dot('#ff5f57'),
      dot('#febc2e'),
      dot('#28c840'),
      text(
        {
          fontFamily: SANS,
          fontSize: 20,
          color: '#9da5b4',
          marginLeft: 18,
          lineClamp: 1,
          width: inner - 120,
        },
        title,
      ),
    ),
    div(
      {
        flexDirection: 'column',
        padding: codePad,
        fontFamily: MONO,
        fontSize,
        lineHeight: 1.5,
        color: code.foreground,
      },
      ...code.lines.map(line),
    ),
  );
  const root = div({ width, padding: pad, backgroundColor: '#1b1f24', flexDirection: 'column' }, window);
  return renderPng(root, { width }, fonts().code);
}
