/**
 * Loads the catalog data files once at start-up and checks every entry: a bad one stops start-up naming itself and
 * its field. The check (each entry's shape, price rules and names, every schema compiled, every example validated and
 * priced) is most of a start-up's own work, so the build runs it once and keeps what it passed: the digest of the data
 * and the entries it built. A start-up on the same data and options takes those entries as they are.
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

/** The data files shipped with kasir. */
const SHIPPED_DATA = shippedFile('catalog/data/');

/**
 * Where the build keeps what its check passed: `{ digest, entries }` (CheckedData). Every build writes it again beside
 * the code it builds, so the entries in it are always those this code makes of that data.
 */
const CHECKED = 'checked.json';

interface CheckedData {
  digest: string;
  entries: CatalogEntry[];
}

/**
 * The data files' text, and a digest of all of it (names and contents) and of the options the check depends on (a
 * margin moves the examples' prices).
 */
function readData(options: LoadOptions, dir: URL): { texts: Record<DataFileName, string>; digest: string } {
  const hash = createHash('sha256').update(`${JSON.stringify(options)}\0`);
  const texts = {} as Record<DataFileName, string>;
  for (const name of DATA_FILES) {
    const text = readFileSync(new URL(`${name}.json`, dir), 'utf8');
    hash.update(`${name}\0${text}\0`);
    texts[name] = text;
  }
  return { texts, digest: hash.digest('hex') };
}

function parseAll(texts: Record<DataFileName, string>): Record<DataFileName, unknown> {
  return Object.fromEntries(DATA_FILES.map((name) => [name, JSON.parse(texts[name])])) as Record<
    DataFileName,
    unknown
  >;
}

/** The entries the build checked, when it checked this very data with these options. */
function checkedEntries(dir: URL, digest: string): CatalogEntry[] | undefined {
  const file = new URL(CHECKED, dir);
  if (!existsSync(file)) return undefined;
  const checked = JSON.parse(readFileSync(file, 'utf8')) as CheckedData;
  return checked.digest === digest ? checked.entries : undefined;
}

/**
 * Reads every data file and builds the catalog; throws CatalogError when any entry is bad. `dir`: the data folder
 * (the shipped one by default).
 */
export function loadCatalog(options: LoadOptions, dir: URL = SHIPPED_DATA): LoadedCatalog {
  const { texts, digest } = readData(options, dir);
  const entries = checkedEntries(dir, digest);
  if (entries) return new ServedCatalog(entries, namesOf(entries), undefined, options);
  return buildCatalog(parseAll(texts), options);
}

/**
 * Checks the data files in full and keeps the entries they passed with their digest, for start-ups on the same
 * data and options; run by the build, throws when the data is bad.
 */
export function stampCheckedData(options: LoadOptions, dir: URL = SHIPPED_DATA): void {
  const { texts, digest } = readData(options, dir);
  const checked: CheckedData = { digest, entries: checkCatalog(parseAll(texts), options).entries };
  writeFileSync(new URL(CHECKED, dir), JSON.stringify(checked));
}

/** Every id and alias, to the id of its entry (buildCatalog has checked that no two entries share one). */
function namesOf(entries: CatalogEntry[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const entry of entries)
    for (const name of [entry.id, ...(entry.aliases ?? [])]) names.set(name, entry.id);
  return names;
}

/** Builds the catalog from parsed data files (tests pass their own), checking them in full. */
export function buildCatalog(files: Record<DataFileName, unknown>, options: LoadOptions): LoadedCatalog {
  return checkCatalog(files, options).catalog;
}

/** The full check of parsed data files: the catalog they make, and its entries in the files' order. */
function checkCatalog(
  files: Record<DataFileName, unknown>,
  options: LoadOptions,
): { catalog: LoadedCatalog; entries: CatalogEntry[] } {
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
  return { catalog, entries };
}
