/**
 * Loads the catalog data files once at start-up and checks every entry: a bad one stops start-up naming itself and
 * its field. Compiling every entry's schema is most of that check's cost, so the build does it once and leaves a
 * stamp of the data it checked; a start-up on the same data skips the compile (each schema compiles on first use).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { shippedFile } from '../shipped-files.js';
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

const dataUrl = (name: string) => shippedFile(`catalog/data/${name}`);

/** Where the build records the digest of the data files whose every schema compiled. */
const STAMP = 'schemas-checked.sha256';

/**
 * The data files' text, and a digest of all of it (names and contents) and of the options the check depends on (a
 * margin moves the examples' prices).
 */
function readData(options: LoadOptions): { files: Record<DataFileName, unknown>; digest: string } {
  const hash = createHash('sha256').update(`${JSON.stringify(options)}\0`);
  const files = {} as Record<DataFileName, unknown>;
  for (const name of DATA_FILES) {
    const text = readFileSync(dataUrl(`${name}.json`), 'utf8');
    hash.update(`${name}\0${text}\0`);
    files[name] = JSON.parse(text);
  }
  return { files, digest: hash.digest('hex') };
}

/** Reads every data file and builds the catalog; throws CatalogError when any entry is bad. */
export function loadCatalog(options: LoadOptions): LoadedCatalog {
  const { files, digest } = readData(options);
  const stamp = dataUrl(STAMP);
  const schemasChecked = existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === digest;
  return buildCatalog(files, options, { schemasChecked });
}

/** Checks the data files in full (every schema compiled) and stamps them so; run by the build, throws when bad. */
export function stampCheckedData(options: LoadOptions): void {
  const { files, digest } = readData(options);
  buildCatalog(files, options);
  writeFileSync(dataUrl(STAMP), `${digest}\n`);
}

/** Builds the catalog from parsed data files (tests pass their own). */
export function buildCatalog(
  files: Record<DataFileName, unknown>,
  options: LoadOptions,
  { schemasChecked = false } = {},
): LoadedCatalog {
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
  // `schemasChecked`: the build already compiled these very files' schemas (loadCatalog).
  const checker = schemasChecked ? undefined : (recentChecker?.deref() ?? new Validators());
  if (checker) recentChecker = new WeakRef(checker);
  for (const entry of entries) {
    const label = `entry "${entry.id}"`;
    try {
      checker?.compile(requestSchema(entry));
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
    if (!checker) break;
    const checked = catalog.checkDefaultRequest(entry, checker.compile(requestSchema(entry)));
    if (!checked.ok) {
      const why = checked.errors.map((e) => `${e.field}: ${e.message}`).join('; ');
      problems.push(`entry "${entry.id}" field "example": the default request is invalid (${why})`);
    }
  }
  if (problems.length) throw new CatalogError(problems);
  return catalog;
}
