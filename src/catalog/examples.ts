/** Minimal example requests built from an entry's schema: the "default request" /v1/price quotes and /v1/consult shows. */
import type { CatalogEntry, Category, JsonSchema } from './types.js';

const PROMPTS: Record<Category | 'tool', string> = {
  'text-to-image': 'A red fox sitting in fresh snow at golden hour, photorealistic',
  'text-to-video': 'A slow drone shot over green rice terraces at sunrise',
  'image-to-video': 'The camera slowly pushes in while leaves move in the wind',
  'video-to-video': 'Restyle the clip as a hand-painted watercolour animation',
  'text-to-speech': 'Selamat pagi! Welcome to kasir.',
  'speech-to-text': 'A meeting about the quarterly budget',
  music: 'An upbeat lo-fi beat with soft piano and rain sounds',
  chat: 'Hello! What can you do?',
  tool: 'example',
};

/** A public ElevenLabs premade voice ("George"), so the example of an ElevenLabs model runs as written. */
const ELEVENLABS_VOICE = 'JBFqnCBsd6RMkjVDRZzb';

function fileUrl(name: string, category: Category | 'tool'): string {
  if (category === 'speech-to-text' || /audio/.test(name)) return 'https://example.com/speech.mp3';
  if (/video/i.test(name) || category === 'video-to-video') return 'https://example.com/clip.mp4';
  return 'https://example.com/photo.jpg';
}

function stringExample(name: string, prop: JsonSchema, category: Category | 'tool'): string {
  if (prop.fileRef) return fileUrl(name, category);
  if (name === 'voice_id') return ELEVENLABS_VOICE;
  if (/lyric/i.test(name)) return '[verse] Morning light on the city, coffee in my hand';
  let text = PROMPTS[category];
  const min = typeof prop.minLength === 'number' ? prop.minLength : 0;
  while (text.length < min) text += ` ${text}`;
  if (typeof prop.maxLength === 'number') text = text.slice(0, prop.maxLength);
  return text;
}

function valueFor(name: string, prop: JsonSchema, category: Category | 'tool'): unknown {
  if (prop.default !== undefined) return prop.default;
  if (Array.isArray(prop.enum) && prop.enum.length) return prop.enum[0];
  const branches = prop.anyOf as JsonSchema[] | undefined;
  if (branches?.[0]) return valueFor(name, branches[0], category);
  switch (prop.type) {
    case 'integer':
    case 'number':
      return typeof prop.minimum === 'number' ? prop.minimum : 1;
    case 'boolean':
      return false;
    case 'array':
      return prop.items && (prop.items as JsonSchema).fileRef ? [fileUrl(name, category)] : [];
    case 'object':
      return objectExample(prop, category);
    default:
      return stringExample(name, prop, category);
  }
}

function objectExample(schema: JsonSchema, category: Category | 'tool'): Record<string, unknown> {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const out: Record<string, unknown> = {};
  for (const name of (schema.required as string[] | undefined) ?? []) {
    const prop = props[name];
    if (prop) out[name] = valueFor(name, prop, category);
  }
  return out;
}

/** The entry's own example, else its required inputs filled with sample values. Never includes `model`. */
export function exampleInput(entry: CatalogEntry): Record<string, unknown> {
  if (entry.example) return structuredClone(entry.example);
  const category = entry.kind === 'model' ? entry.category : 'tool';
  if (category === 'chat') return { messages: [{ role: 'user', content: PROMPTS.chat }] };
  return objectExample(entry.input, category);
}
