/**
 * The README's configuration tables, rendered from the settings areas' rows: each table follows a
 * `<!-- settings: <area> … -->` line naming the areas it shows, in order. `npm run config:readme` rewrites them.
 */
import type { SettingRow, SettingsArea } from './setting.js';

const MARKER = /^<!-- settings: ([a-z0-9 -]+) -->$/;

/** The first cell of a row: its label, or its variables in backticks. */
export function rowLabel(row: SettingRow): string {
  return row.label ?? row.vars.map((v) => `\`${v}\``).join(', ');
}

/** A markdown table of the areas' rows (the header of the first area). */
export function renderTable(areas: readonly SettingsArea[]): string[] {
  const [a, b, c] = areas[0]?.columns ?? ['Variable', 'Default', 'Meaning'];
  return [
    `| ${a} | ${b} | ${c} |`,
    '|---|---|---|',
    ...areas.flatMap((area) =>
      area.rows.map((row) => `| ${rowLabel(row)} | ${row.default} | ${row.meaning} |`),
    ),
  ];
}

/** One marked table of a markdown text: the areas it names, and where its lines are. */
export interface MarkedTable {
  areaNames: string[];
  /** Index of the table's first line (the one after the marker). */
  start: number;
  lines: string[];
}

export function markedTables(markdown: string): MarkedTable[] {
  const lines = markdown.split('\n');
  const tables: MarkedTable[] = [];
  lines.forEach((line, i) => {
    const names = MARKER.exec(line.trim())?.[1];
    if (!names) return;
    let end = i + 1;
    while (lines[end]?.startsWith('|')) end++;
    tables.push({ areaNames: names.trim().split(/\s+/), start: i + 1, lines: lines.slice(i + 1, end) });
  });
  return tables;
}

/** The markdown with every marked table rendered anew from the areas. */
export function renderTables(markdown: string, areas: readonly SettingsArea[]): string {
  const lines = markdown.split('\n');
  for (const table of markedTables(markdown).reverse()) {
    const named = table.areaNames.map((name) => {
      const area = areas.find((a) => a.name === name);
      if (!area) throw new Error(`README names an unknown settings area "${name}"`);
      return area;
    });
    lines.splice(table.start, table.lines.length, ...renderTable(named));
  }
  return lines.join('\n');
}
