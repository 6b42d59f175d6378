/**
 * The fonts the cards are drawn with, read once from npm packages that ship TTF files (all SIL Open Font License
 * 1.1, see NOTICE): Inter (Latin, Latin Extended: every letter Indonesian and the other Latin-script languages
 * use), JetBrains Mono (code) and Noto Emoji (monochrome emoji, for tweet-image; satori draws outlines, not colour
 * glyph tables).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Font } from 'satori';

const require = createRequire(import.meta.url);

function ttf(pkg: string, file: string): Buffer {
  return readFileSync(require.resolve(`${pkg}/${file}`));
}

export const SANS = 'Inter';
export const MONO = 'JetBrains Mono';
export const EMOJI = 'Noto Emoji';

let loaded: { text: Font[]; code: Font[]; withEmoji: Font[] } | undefined;

/** The font sets: `text` (Inter 400/700), `code` (adds JetBrains Mono), `withEmoji` (adds Noto Emoji). */
export function fonts(): { text: Font[]; code: Font[]; withEmoji: Font[] } {
  if (loaded) return loaded;
  const text: Font[] = [
    { name: SANS, data: ttf('@expo-google-fonts/inter', '400Regular/Inter_400Regular.ttf'), weight: 400 },
    { name: SANS, data: ttf('@expo-google-fonts/inter', '700Bold/Inter_700Bold.ttf'), weight: 700 },
  ];
  const mono: Font = {
    name: MONO,
    data: ttf('@expo-google-fonts/jetbrains-mono', '400Regular/JetBrainsMono_400Regular.ttf'),
    weight: 400,
  };
  const emoji: Font = {
    name: EMOJI,
    data: ttf('@expo-google-fonts/noto-emoji', '400Regular/NotoEmoji_400Regular.ttf'),
    weight: 400,
  };
  loaded = { text, code: [...text, mono], withEmoji: [...text, emoji] };
  return loaded;
}
