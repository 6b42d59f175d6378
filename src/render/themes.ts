/** The cards' colour themes (light and dark) and the accent colour a caller may give. */
import { invalidInput } from '../http/errors.js';

export interface Theme {
  name: 'light' | 'dark';
  background: string;
  text: string;
  muted: string;
  accent: string;
  /** Drawn over a background image so the text stays readable. */
  scrim: string;
}

export const THEMES: Readonly<Record<Theme['name'], Theme>> = {
  light: {
    name: 'light',
    background: '#f8fafc',
    text: '#0f172a',
    muted: '#475569',
    accent: '#2563eb',
    scrim: 'rgba(248, 250, 252, 0.78)',
  },
  dark: {
    name: 'dark',
    background: '#0f172a',
    text: '#f8fafc',
    muted: '#cbd5e1',
    accent: '#38bdf8',
    scrim: 'rgba(15, 23, 42, 0.72)',
  },
};

/** The theme named by the `theme` input (case-insensitive; default dark), or a 400 naming the field. */
export function themeOf(input: Record<string, unknown>, fallback: Theme['name'] = 'dark'): Theme {
  const raw = input.theme;
  if (raw === undefined || raw === null || raw === '') return THEMES[fallback];
  const name = String(raw).trim().toLowerCase();
  if (name === 'light' || name === 'dark') return THEMES[name];
  throw invalidInput([{ field: 'theme', message: `must be one of light, dark (got "${String(raw)}")` }]);
}

/** The `accent` input as `#rrggbb`/`#rgb` (the catalog's pattern has checked it), or the theme's accent. */
export function accentOf(input: Record<string, unknown>, theme: Theme): string {
  const raw = input.accent;
  if (typeof raw !== 'string' || raw === '') return theme.accent;
  return raw.startsWith('#') ? raw : `#${raw}`;
}
