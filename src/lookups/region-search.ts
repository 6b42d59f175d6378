/** Name search over the regions: exact, prefix, word and typo-tolerant matches, ranked with kota first on ties. */
import { regionAliases } from './region-aliases.js';
import { allRegions, type Region, type RegionLevel } from './wilayah.js';

// Hand-written rather than a full-text library: 552 short names need a fixed, explainable ranking
// (exact name > prefix > word > capital > typo, kota before kabupaten before provinsi on ties) and
// spacing-blind matching ("Pangkal Pinang" = "Pangkalpinang"), which BM25-style scoring does not give.

type Kind = 'kota' | 'kabupaten' | 'provinsi';

const KIND_RANK: Record<Kind, number> = { kota: 0, kabupaten: 1, provinsi: 2 };

/** Type words that may open a name, longest first; what they say about the kind of region. */
const KIND_PREFIXES: ReadonlyArray<readonly [string, Kind]> = [
  ['kabupaten administrasi', 'kabupaten'],
  ['kota administrasi', 'kota'],
  ['kota adm', 'kota'],
  ['kabupaten', 'kabupaten'],
  ['kab', 'kabupaten'],
  ['kotamadya', 'kota'],
  ['kodya', 'kota'],
  ['kota', 'kota'],
  ['provinsi', 'provinsi'],
  ['propinsi', 'provinsi'],
  ['prov', 'provinsi'],
];

/** Lower case, no diacritics or punctuation, single spaces, "kep" spelled out. */
function normalizeWords(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/['’`]/g, '')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .map((w) => (w === 'kep' ? 'kepulauan' : w))
    .join(' ');
}

function stripKind(words: string): { kind?: Kind; rest: string } {
  for (const [prefix, kind] of KIND_PREFIXES) {
    if (words === prefix) return { kind, rest: '' };
    if (words.startsWith(`${prefix} `)) return { kind, rest: words.slice(prefix.length + 1) };
  }
  return { rest: words };
}

interface Entry {
  region: Region;
  kind: Kind;
  /** The name without its type word, normalized: "jakarta pusat". */
  core: string;
  /** The core between spaces, so a whole-word test is one `includes`. */
  padded: string;
  compact: string;
  ibukota: string;
}

interface Index {
  entries: Entry[];
  byCompact: Map<string, Entry[]>;
  byWord: Map<string, Entry[]>;
  byIbukota: Map<string, Entry[]>;
  /** Entries sorted by `compact`, so a prefix is a binary search away. */
  sorted: Entry[];
}

let cached: Index | undefined;

function push<K>(map: Map<K, Entry[]>, key: K, e: Entry): void {
  const list = map.get(key);
  if (list) list.push(e);
  else map.set(key, [e]);
}

function index(): Index {
  if (cached) return cached;
  const entries = allRegions().map((region): Entry => {
    const core = stripKind(normalizeWords(region.nama)).rest;
    const kind: Kind =
      region.level === 'provinsi' ? 'provinsi' : region.nama.startsWith('Kota') ? 'kota' : 'kabupaten';
    return {
      region,
      kind,
      core,
      padded: ` ${core} `,
      compact: core.replaceAll(' ', ''),
      ibukota: normalizeWords(region.ibukota).replaceAll(' ', ''),
    };
  });
  const byCompact = new Map<string, Entry[]>();
  const byWord = new Map<string, Entry[]>();
  const byIbukota = new Map<string, Entry[]>();
  for (const e of entries) {
    push(byCompact, e.compact, e);
    push(byIbukota, e.ibukota, e);
    for (const w of new Set(e.core.split(' '))) push(byWord, w, e);
  }
  const sorted = [...entries].sort((x, y) => (x.compact < y.compact ? -1 : x.compact > y.compact ? 1 : 0));
  cached = { entries, byCompact, byWord, byIbukota, sorted };
  return cached;
}

/** Entries that can match `q` as written: same name, name prefix, a word of the name, or the capital. */
function writtenCandidates(q: Query): Set<Entry> {
  const { byCompact, byWord, byIbukota, sorted } = index();
  const out = new Set<Entry>([...(byCompact.get(q.compact) ?? []), ...(byIbukota.get(q.compact) ?? [])]);
  for (const e of byWord.get(q.words.split(' ')[0] ?? '') ?? []) out.add(e);
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] as Entry).compact < q.compact) lo = mid + 1;
    else hi = mid;
  }
  for (let i = lo; i < sorted.length && (sorted[i] as Entry).compact.startsWith(q.compact); i++) {
    out.add(sorted[i] as Entry);
  }
  return out;
}

// Three reusable rows for typoDistance: the search runs it on hundreds of names per query.
let rows: [Int32Array, Int32Array, Int32Array] = [new Int32Array(64), new Int32Array(64), new Int32Array(64)];

/**
 * Optimal string alignment distance (Levenshtein plus adjacent transposition), giving up past `max`.
 * @example typoDistance('bandng', 'bandung', 2) // 1
 */
export function typoDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  if (rows[0].length <= b.length) {
    const size = b.length * 2 + 1;
    rows = [new Int32Array(size), new Int32Array(size), new Int32Array(size)];
  }
  let [prevPrev, prev, row] = rows;
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    row[0] = i;
    let rowMin = i;
    const ai = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const bj = b.charCodeAt(j - 1);
      let d = Math.min(
        (prev[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (prev[j - 1] as number) + (ai === bj ? 0 : 1),
      );
      if (i > 1 && j > 1 && ai === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === bj) {
        d = Math.min(d, (prevPrev[j - 2] as number) + 1);
      }
      row[j] = d;
      if (d < rowMin) rowMin = d;
    }
    if (rowMin > max) return max + 1;
    [prevPrev, prev, row] = [prev, row, prevPrev];
  }
  return prev[b.length] as number;
}

function allowedTypos(length: number): number {
  if (length < 4) return 0;
  return length < 8 ? 1 : 2;
}

export type MatchKind = 'exact' | 'alias' | 'prefix' | 'word' | 'ibukota' | 'typo';

export interface RegionMatch {
  region: Region;
  score: number;
  match: MatchKind;
}

interface Query {
  words: string;
  padded: string;
  compact: string;
  kind?: Kind;
}

function parseQuery(text: string): Query | undefined {
  const words = normalizeWords(text);
  const { kind, rest } = stripKind(words);
  const name = rest || words;
  const compact = name.replaceAll(' ', '');
  return compact ? { words: name, padded: ` ${name} `, compact, kind } : undefined;
}

type Scored = { score: number; match: MatchKind } | undefined;

function scoreAsWritten(q: Query, e: Entry): Scored {
  if (e.compact === q.compact) return { score: 100, match: 'exact' };
  if (q.compact.length >= 3 && e.compact.startsWith(q.compact)) {
    return { score: 80 + (10 * q.compact.length) / e.compact.length, match: 'prefix' };
  }
  if (e.padded.includes(q.padded)) return { score: 70, match: 'word' };
  if (e.ibukota === q.compact) return { score: 65, match: 'ibukota' };
  return undefined;
}

function scoreTypo(q: Query, e: Entry): Scored {
  const max = allowedTypos(q.compact.length);
  if (max === 0) return undefined;
  const whole = typoDistance(q.compact, e.compact, max);
  if (whole <= max) return { score: 60 - 10 * whole, match: 'typo' };
  if (e.compact.length > q.compact.length) {
    const head = typoDistance(q.compact, e.compact.slice(0, q.compact.length), max);
    if (head <= max) return { score: 50 - 10 * head, match: 'typo' };
  }
  const capital = typoDistance(q.compact, e.ibukota, max);
  if (capital <= max) return { score: 45 - 10 * capital, match: 'typo' };
  return undefined;
}

export interface SearchOptions {
  level?: RegionLevel;
  /** Only regions of this provinsi (and the provinsi itself). */
  province?: string;
  limit?: number;
}

/**
 * Regions whose name matches `text`, best first. Ties go to kota, then kabupaten, then provinsi
 * ("Bogor" → Kota Bogor, then Kabupaten Bogor); a "Kabupaten"/"Kab."/"Kota" prefix in the query
 * lifts regions of that kind.
 */
export function searchRegions(text: string, options: SearchOptions = {}): RegionMatch[] {
  const q = parseQuery(text);
  if (!q) return [];
  const wanted = (e: Entry) =>
    (!options.level || e.region.level === options.level) &&
    (!options.province || e.region.kode === options.province || e.region.induk === options.province);
  // Typo matching runs only when nothing matched as written: "Medan" must not also list "Merangin".
  let kept = [
    ...rank(q, [...writtenCandidates(q)].filter(wanted), scoreAsWritten),
    ...rank(q, aliasEntries(q.compact, 0).filter(wanted), () => ({ score: 100, match: 'alias' })),
  ];
  if (kept.length === 0) {
    const max = allowedTypos(q.compact.length);
    kept = [
      ...rank(q, index().entries.filter(wanted), scoreTypo),
      ...rank(q, aliasEntries(q.compact, max).filter(wanted), () => ({ score: 50, match: 'typo' })),
    ];
  }
  kept = bestPerRegion(kept);
  kept.sort(
    (a, b) => b.score - a.score || a.rank - b.rank || a.region.kode.localeCompare(b.region.kode, 'en'),
  );
  return kept
    .slice(0, options.limit ?? kept.length)
    .map(({ region, score, match }) => ({ region, score: Math.round(score * 10) / 10, match }));
}

/** The entries of the regions an alias (data/region-aliases.json) names, the alias within `maxTypos` of `compact`. */
function aliasEntries(compact: string, maxTypos: number): Entry[] {
  const kodes = regionAliases()
    .filter((a) =>
      maxTypos === 0 ? a.compact === compact : typoDistance(compact, a.compact, maxTypos) <= maxTypos,
    )
    .map((a) => a.kode);
  if (kodes.length === 0) return [];
  return index().entries.filter((e) => kodes.includes(e.region.kode));
}

/** One result per region: its best score. */
function bestPerRegion<T extends RegionMatch>(found: T[]): T[] {
  const best = new Map<string, T>();
  for (const f of found) {
    const seen = best.get(f.region.kode);
    if (!seen || f.score > seen.score) best.set(f.region.kode, f);
  }
  return [...best.values()];
}

function rank(q: Query, candidates: Entry[], score: (q: Query, e: Entry) => Scored) {
  const found: Array<RegionMatch & { rank: number }> = [];
  for (const e of candidates) {
    const s = score(q, e);
    if (!s) continue;
    const bonus = q.kind === e.kind ? 5 : 0;
    found.push({ region: e.region, score: s.score + bonus, match: s.match, rank: KIND_RANK[e.kind] });
  }
  return found;
}

/** The closest names to an unmatched query, for "did you mean" messages. */
export function suggestRegions(text: string, count = 5): Region[] {
  const q = parseQuery(text);
  if (!q) return [];
  const ranked = index().entries.map((e) => {
    const head = e.compact.slice(0, Math.max(q.compact.length, 1));
    const distance = Math.min(
      typoDistance(q.compact, e.compact) / Math.max(q.compact.length, e.compact.length),
      typoDistance(q.compact, head) / Math.max(q.compact.length, head.length) + 0.15,
    );
    return { e, distance };
  });
  ranked.sort(
    (a, b) =>
      a.distance - b.distance ||
      KIND_RANK[a.e.kind] - KIND_RANK[b.e.kind] ||
      b.e.region.penduduk - a.e.region.penduduk,
  );
  return ranked.slice(0, count).map((r) => r.e.region);
}
