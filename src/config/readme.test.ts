// The README's configuration tables are the settings areas' rows: a setting cannot be added, renamed or given
// another default without the README saying so. `npm run config:readme` rewrites the tables from the rows.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SETTINGS_AREAS } from './areas.js';
import { markedTables, renderTables } from './docs.js';

const README = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');

describe('the configuration tables of the README', () => {
  if (process.env.KASIR_WRITE_README === '1') {
    writeFileSync(README, renderTables(readFileSync(README, 'utf8'), SETTINGS_AREAS));
  }
  const markdown = readFileSync(README, 'utf8');

  it('are rendered from the areas’ rows, as written', () => {
    expect(markdown.split('\n')).toEqual(renderTables(markdown, SETTINGS_AREAS).split('\n'));
  });

  it('show every area once', () => {
    const shown = markedTables(markdown).flatMap((t) => t.areaNames);
    expect([...shown].sort()).toEqual(SETTINGS_AREAS.map((a) => a.name).sort());
  });

  it('document every setting of the schema, and nothing else', () => {
    const documented = SETTINGS_AREAS.flatMap((area) => area.rows.flatMap((row) => row.vars));
    const declared = SETTINGS_AREAS.flatMap((area) => Object.keys(area.shape));
    expect(documented.length, 'a setting documented twice').toBe(new Set(documented).size);
    expect(declared.length, 'a setting declared in two areas').toBe(new Set(declared).size);
    expect([...documented].sort()).toEqual([...declared].sort());
    for (const area of SETTINGS_AREAS) {
      const own = area.rows.flatMap((row) => row.vars);
      expect([...own].sort(), area.name).toEqual(Object.keys(area.shape).sort());
    }
  });

  it('show the default each schema applies', () => {
    for (const area of SETTINGS_AREAS) {
      for (const row of area.rows) {
        for (const name of row.vars) {
          const fallback = area.shape[name]?.safeParse(undefined);
          if (!fallback?.success || fallback.data === undefined || fallback.data === '') continue;
          expect(row.default, `${name}'s default`).toContain(`\`${String(fallback.data)}\``);
        }
      }
    }
  });
});
