/**
 * The largest request body each route reads; a larger one is answered 413 `payload_too_large` with the limit in
 * `details.limitBytes`, before any of it is parsed. The README lists them. Uploads to POST /v1/media have their own
 * limit, MEDIA_MAX_BYTES (40 MB by default).
 */
const MiB = 1024 * 1024;

export const BODY_LIMITS = {
  /** POST /v1/chat/completions: whole conversations with inline images (data URIs). */
  chat: 16 * MiB,
  /** POST /v1/price: any request a paid route takes can be priced before it is sent. */
  price: 16 * MiB,
  /**
   * POST /v1/tools/{name} and /x402/tools/{name}: JSON inputs, photos and documents as inline base64 included
   * (the spec advises inline files under about 1 MB; larger ones go through POST /v1/media and a link).
   */
  tools: 8 * MiB,
  /**
   * The media model routes (/v1/infer, /v1/images/generations, /v1/audio/*, …): inputs with inline files, up to
   * a 25 MB audio file as base64 for speech-to-text.
   */
  media: 36 * MiB,
  /** POST /v1/recipes/{name}: a prompt and a few choices. */
  recipes: 64 * 1024,
  /** /v1/admin/*: small JSON objects (labels, amounts, reasons). */
  admin: 64 * 1024,
} as const;

/**
 * How deep a JSON body may nest. Deeper bodies are refused with a 400: serialising one for the upstream (and
 * counting its tokens) would recurse once per level, and no chat request, tool schema or model input nests this far.
 */
export const MAX_JSON_DEPTH = 64;
