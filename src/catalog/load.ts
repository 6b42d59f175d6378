/** Loads the catalog data files once at start-up and checks every entry: a bad one stops start-up naming itself and its field. */
import { readFileSync } from 'node:fs';
import { DATA_FILES, type DataFileName, dataFileShape } from './data-shape.js';
import { toEntry } from './entry-parse.js';
import { ruleProblems } from './rule-checks.js';
import { type LoadedCatalog, type LoadOptions, requestSchema, ServedCatalog } from './served.js';
import type { CatalogEntry } from './types.js';
import { Validators } from './validate.js';

// The start-up check's own validators (see buildCatalog), held weakly: a catalog built while they are still alive
// (tests build many in a row) reuses them, and a server's garbage collector takes them after start-up.
let recentChecker: WeakRef<Validators> | undefined;

/** Raised when catalog data is invalid; each line names the file, the entry and the field. */
export class CatalogError extends Error {
  constructor(readonly problems: string[]) {
    super(`catalog data is invalid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CatalogError';
  }
}

function readDataFile(name: DataFileName): unknown {
  return JSON.parse(readFileSync(new URL(`./data/${name}.json`, import.meta.url), 'utf8'));
}

/** Reads every data file and builds the catalog; throws CatalogError when any entry is bad. */
export function loadCatalog(options: LoadOptions): LoadedCatalog {
  const files = Object.fromEntries(DATA_FILES.map((f) => [f, readDataFile(f)])) as Record<
    DataFileName,
    unknown
  >;
  return buildCatalog(files, options);
}

/** Builds the catalog from parsed data files (tests pass their own). */
export function buildCatalog(files: Record<DataFileName, unknown>, options: LoadOptions): LoadedCatalog {
  const problems: string[] = [];
  const entries: CatalogEntry[] = [];
  for (const file of DATA_FILES) {
    const parsed = dataFileShape.safeParse(files[file]);
    if (!parsed.success) {
      problems.push(`${file}.json: must be { "entries": [ … ] }`);
      continue;
    }
    parsed.data.entries.forEach((raw, index) => {
      const rawId = (raw as { id?: unknown } | null)?.id;
      const label = `${file}.json entry "${typeof rawId === 'string' ? rawId : `#${index}`}"`;
      const entry = toEntry(file, raw, (field, problem) =>
        problems.push(`${label} field "${field}": ${problem}`),
      );
      if (entry) entries.push(entry);
    });
  }
  // The check compiles every schema (one ajv refuses is reported here, not on a first request) with compilers of its
  // own, dropped when it ends: a deployment calls a few of the ~110 schemas, and compiles those again on first use
  // rather than keeping every validator alive for the life of the process.
  const checker = recentChecker?.deref() ?? new Validators();
  recentChecker = new WeakRef(checker);
  for (const entry of entries) {
    const label = `entry "${entry.id}"`;
    try {
      checker.compile(requestSchema(entry));
    } catch (err) {
      problems.push(`${label} field "input": ${(err as Error).message}`);
      continue;
    }
    if (entry.kind === 'model' && entry.price) {
      for (const p of ruleProblems(entry.price, entry.input))
        problems.push(`${label} field "${p.field}": ${p.problem}`);
      if ((entry.category === 'chat') !== (entry.price.kind === 'chat_tokens')) {
        problems.push(`${label} field "price.kind": chat models, and only they, use chat_tokens`);
      }
    }
    for (const f of entry.kind === 'model' ? (entry.localInputs ?? []) : []) {
      if (!(entry.input.properties as Record<string, unknown> | undefined)?.[f]) {
        problems.push(`${label} field "localInputs": "${f}" is not an input of this model`);
      }
    }
  }
  const names = new Map<string, string>();
  for (const entry of entries) {
    for (const name of [entry.id, ...(entry.aliases ?? [])]) {
      const owner = names.get(name);
      if (owner !== undefined && owner !== entry.id) {
        problems.push(
          `entry "${entry.id}" field "${name === entry.id ? 'id' : 'aliases'}": "${name}" is already used by "${owner}"`,
        );
      }
      names.set(name, entry.id);
    }
  }
  if (problems.length) throw new CatalogError(problems);
  const catalog = new ServedCatalog(entries, names, undefined, options);
  // Every example must pass its own validation and price within range: the default request is sold as written.
  for (const entry of entries) {
    const checked = catalog.checkDefaultRequest(entry, checker.compile(requestSchema(entry)));
    if (!checked.ok) {
      const why = checked.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      problems.push(`entry "${entry.id}" field "example": the default request is invalid (${why})`);
    }
  }
  if (problems.length) throw new CatalogError(problems);
  return catalog;
}
