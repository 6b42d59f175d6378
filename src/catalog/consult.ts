/** GET /v1/consult: plain-words intent → ranked endpoints (models, tools, free lookups), by full-text search. Never runs anything. */
import MiniSearch, { type SearchResult } from 'minisearch';
import { CATEGORY_ROUTES } from './category-routes.js';
import { exampleInput } from './examples.js';
import type { PriceSummary } from './summary.js';
import { type CatalogEntry, type Category, isFree, methodOf, pathOf } from './types.js';

/** What each category is called in requests, in English and Indonesian. */
/** The words a recipe is found by beyond its own name, synonyms and description. */
export const RECIPE_WORDS = ['recipe', 'pipeline', 'resep'];

export const CATEGORY_WORDS: Record<Category, string[]> = {
  'text-to-image': [
    'image',
    'picture',
    'photo',
    'illustration',
    'drawing',
    'art',
    'logo',
    'poster',
    'generate image',
    'draw',
    'paint',
    'gambar',
    'foto',
    'ilustrasi',
    'lukisan',
    'buat gambar',
    'desain',
  ],
  'text-to-video': [
    'video',
    'clip',
    'film',
    'movie',
    'animation',
    'footage',
    'klip',
    'animasi',
    'buat video',
  ],
  'image-to-video': [
    'video from image',
    'animate',
    'animate photo',
    'image to video',
    'bring photo to life',
    'animasikan',
    'hidupkan foto',
    'gerakkan gambar',
    'video dari gambar',
    'video dari foto',
  ],
  'video-to-video': [
    'edit video',
    'restyle video',
    'video style',
    'transform video',
    'change video',
    'ubah video',
    'sunting video',
    'gaya video',
  ],
  'text-to-speech': [
    'speech',
    'voice',
    'voiceover',
    'voice over',
    'read aloud',
    'narrate',
    'narration',
    'speak',
    'say',
    'tts',
    'audiobook',
    'suara',
    'bacakan',
    'ucapkan',
    'narasi',
    'sulih suara',
    'pengisi suara',
    'teks ke suara',
  ],
  'speech-to-text': [
    'transcribe',
    'transcription',
    'transcript',
    'meeting',
    'minutes',
    'dictation',
    'subtitle',
    'captions',
    'speech recognition',
    'recording',
    'podcast',
    'interview',
    'transkripsi',
    'transkrip',
    'rapat',
    'notulen',
    'rekaman',
    'teks dari audio',
  ],
  music: [
    'music',
    'song',
    'jingle',
    'soundtrack',
    'instrumental',
    'beat',
    'melody',
    'background music',
    'musik',
    'lagu',
    'lirik',
    'irama',
  ],
  chat: [
    'chat',
    'assistant',
    'question',
    'answer',
    'summarize',
    'summary',
    'translate',
    'write',
    'explain',
    'reasoning',
    'llm',
    'code',
    'coding',
    'obrolan',
    'tanya',
    'jawab',
    'ringkas',
    'ringkasan',
    'terjemahkan',
    'tulis',
    'jelaskan',
    'asisten',
  ],
};

const STOP_WORDS = new Set(
  (
    'a an the to of for in on at by from with into and or my me i we you it is are be this that these those ' +
    'want need please can could would some any how what which do does make create generate get give turn ' +
    'yang dan di ke dari untuk dengan saya aku kami ini itu tolong mau ingin bisa buatkan bikin jadi sebuah'
  ).split(' '),
);

/** Lower-case, drop stop words, and strip common English endings so "transcribing" meets "transcribe". */
export function processTerm(term: string): string | null {
  const t = term.toLowerCase();
  if (STOP_WORDS.has(t) || t.length === 0) return null;
  if (t.length > 5) {
    for (const suffix of ['ing', 'ion', 'ed', 'es', 's', 'e']) {
      if (t.endsWith(suffix)) return t.slice(0, -suffix.length);
    }
  }
  return t.length > 3 && t.endsWith('s') && !t.endsWith('ss') ? t.slice(0, -1) : t;
}

export interface ConsultCandidate {
  method: 'GET' | 'POST';
  path: string;
  kind: 'model' | 'tool' | 'recipe' | 'lookup';
  /** The model id (models) … */
  model?: string;
  /** … or the tool id (tools and free lookups) … */
  tool?: string;
  /** … or the recipe id. */
  recipe?: string;
  name: string;
  category: Category | 'tool' | 'recipe' | 'lookup';
  /** Which of the intent's words matched, and where. */
  why: string;
  free: boolean;
  price: PriceSummary;
  /** A minimal request: the JSON body for POST, the query parameters for GET. */
  example: Record<string, unknown>;
  score: number;
}

interface Doc {
  key: string;
  name: string;
  category: string;
  synonyms: string;
  description: string;
  ids: string;
}

function words(id: string): string {
  return id.replace(/[/_@.-]+/g, ' ');
}

function describeMatch(result: SearchResult): string {
  const fields = new Set<string>();
  for (const list of Object.values(result.match)) for (const f of list) fields.add(f);
  const terms = result.terms.map((t) => `"${t}"`).join(', ');
  return `matched ${terms} in ${[...fields].join(', ')}`;
}

/** The words each kind of entry is found by beyond its own name, synonyms and description. */
function categoryWords(e: CatalogEntry): string {
  if (e.kind === 'tool') return 'tool';
  if (e.kind === 'lookup') return 'free lookup gratis indonesia';
  if (e.kind === 'recipe') return `recipe ${RECIPE_WORDS.join(' ')}`;
  return `${e.category.replace(/-/g, ' ')} ${CATEGORY_WORDS[e.category].join(' ')}`;
}

/** The search index over everything offered (models, tools, recipes and free lookups), built once at load. */
export class ConsultIndex {
  private readonly search: MiniSearch<Doc>;
  private readonly entries = new Map<string, CatalogEntry>();

  constructor(
    entries: readonly CatalogEntry[],
    private readonly summarize: (entry: CatalogEntry) => PriceSummary,
  ) {
    this.search = new MiniSearch<Doc>({
      idField: 'key',
      fields: ['name', 'category', 'synonyms', 'description', 'ids'],
      processTerm,
      searchOptions: {
        boost: { synonyms: 3, category: 3, name: 2, ids: 1.5, description: 1 },
        fuzzy: (term) => (term.length > 5 ? 0.2 : false),
        prefix: (term) => term.length > 3,
        combineWith: 'OR',
      },
    });
    const docs: Doc[] = [];
    for (const e of entries) {
      this.entries.set(e.id, e);
      docs.push({
        key: e.id,
        name: e.name,
        category: categoryWords(e),
        synonyms: (e.synonyms ?? []).join(' '),
        description: e.description,
        ids: [e.id, ...(e.aliases ?? [])].map(words).join(' '),
      });
    }
    this.search.addAll(docs);
  }

  /** Up to `limit` candidates, best first; ties go to the cheaper call. */
  consult(intent: string, limit: number): ConsultCandidate[] {
    const results = this.search.search(intent);
    const candidates = results.map((r) => this.candidate(r));
    candidates.sort((a, b) => b.score - a.score || a.price.minMicroUsd - b.price.minMicroUsd);
    return candidates.slice(0, limit);
  }

  private candidate(r: SearchResult): ConsultCandidate {
    const why = describeMatch(r);
    const entry = this.entries.get(String(r.id)) as CatalogEntry;
    const price = this.summarize(entry);
    if (entry.kind !== 'model') {
      return {
        method: methodOf(entry),
        path: pathOf(entry),
        kind: entry.kind,
        ...(entry.kind === 'recipe' ? { recipe: entry.id } : { tool: entry.id }),
        name: entry.name,
        category: entry.kind,
        why,
        free: isFree(entry),
        price,
        example: exampleInput(entry),
        score: r.score,
      };
    }
    return {
      method: 'POST',
      path: entry.route || CATEGORY_ROUTES[entry.category],
      kind: 'model',
      model: entry.id,
      name: entry.name,
      category: entry.category,
      why,
      free: false,
      price,
      example: { model: entry.id, ...exampleInput(entry) },
      score: r.score,
    };
  }
}
