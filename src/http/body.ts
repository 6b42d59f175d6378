/** Reads request bodies within a byte limit, straight from the Node stream when there is one. */
import type { IncomingMessage } from 'node:http';
import type { Context } from 'hono';
import { MAX_JSON_DEPTH } from './body-limits.js';
import type { AppEnv } from './env.js';
import { ApiError } from './errors.js';
import { exchangeOf } from './exchange.js';

/**
 * Reads a Node request's whole body within `limit` bytes (413 above it), from the request stream itself: no
 * Fetch-API body, which costs several times more CPU on Node. The body must not have been read yet.
 */
export function readIncoming(incoming: IncomingMessage, limit: number): Promise<Buffer> {
  if (Number(incoming.headers['content-length'] ?? Number.NaN) > limit)
    return Promise.reject(tooLarge(limit));
  // Read through 'data'/'end' listeners: a stream's async iterator costs several promises per chunk and more
  // to set up, which on a one-chunk JSON body is most of the read.
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        done();
        incoming.resume(); // drain what is left so the connection can answer the 413
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve(chunks.length === 1 && chunks[0] ? chunks[0] : Buffer.concat(chunks, size));
    };
    // A caller that hangs up mid-body ('error' with ECONNRESET, or a 'close' before 'end') sent an incomplete
    // request, not something kasir failed at.
    const cutOff = () => {
      done();
      reject(new ApiError('invalid_input', 'the request body ended before it was complete'));
    };
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', cutOff);
      incoming.off('close', cutOff);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', cutOff);
    incoming.on('close', cutOff);
  });
}

/** Reads a Fetch request's whole body within `limit` bytes (413 above it); `given`: its bytes, handed over in process. */
export async function readFetchBody(req: Request, limit: number, given?: Buffer): Promise<Buffer> {
  if (given) {
    if (given.length > limit) throw tooLarge(limit);
    return given;
  }
  if (Number(req.headers.get('content-length') ?? Number.NaN) > limit) throw tooLarge(limit);
  const buf = Buffer.from(await req.arrayBuffer());
  if (buf.length > limit) throw tooLarge(limit);
  return buf;
}

/** Parses a JSON object body; a malformed, empty or non-object body is a 400 that says what is wrong. */
export async function readJsonObject(c: Context<AppEnv>, limit: number): Promise<Record<string, unknown>> {
  return parseJsonBody(await exchangeOf(c).readBody(limit));
}

/** Above this size a body's nesting is checked on its bytes, before JSON.parse is handed it. */
const PRESCAN_ABOVE_BYTES = 4096;

/** Parses body bytes as a JSON object (see parseJsonObject); an empty body is refused with its own message. */
export function parseJsonBody(bytes: Buffer): Record<string, unknown> {
  if (bytes.length === 0) throw new ApiError('invalid_json', 'request body is empty; send a JSON object');
  // JSON.parse takes about 350 ms per MB of brackets nested in brackets: refuse such a body before parsing it.
  if (bytes.length > PRESCAN_ABOVE_BYTES && bytesNestDeeper(bytes, MAX_JSON_DEPTH)) throw tooDeep('(body)');
  return parseJsonObject(bytes.toString('utf8'));
}

/**
 * Whether JSON text nests arrays and objects more than `levels` deep, read off its bytes in one pass (brackets
 * inside strings do not count). Only a bound: malformed JSON is JSON.parse's to refuse.
 */
export function bytesNestDeeper(bytes: Uint8Array, levels: number): boolean {
  let depth = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i] as number;
    if (b === 0x22) {
      // Skip the string, and the character after each backslash in it.
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c) i++;
    } else if (b === 0x5b || b === 0x7b) {
      if (++depth > levels) return true;
    } else if (b === 0x5d || b === 0x7d) {
      depth--;
    }
  }
  return false;
}

function tooDeep(field: string): ApiError {
  return new ApiError('invalid_json', `the JSON body nests deeper than ${MAX_JSON_DEPTH} levels`, [
    { field, message: `nests deeper than ${MAX_JSON_DEPTH} levels` },
  ]);
}

export function parseJsonObject(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new ApiError('invalid_json', `malformed JSON body: ${(err as Error).message}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ApiError('invalid_json', 'the JSON body must be an object');
  }
  if (nestsDeeper(value, MAX_JSON_DEPTH)) throw tooDeep(deepPath(value, MAX_JSON_DEPTH));
  return value as Record<string, unknown>;
}

/**
 * Whether a parsed JSON value nests more than `levels` deep. Recursion stops at `levels`, so a deep body costs no
 * more call depth than that; each value is visited at most once (time linear in the body).
 */
export function nestsDeeper(value: object, levels: number): boolean {
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const v of value) if (v !== null && typeof v === 'object' && nestsDeeper(v, levels - 1)) return true;
    return false;
  }
  for (const key in value) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== null && typeof v === 'object' && nestsDeeper(v, levels - 1)) return true;
  }
  return false;
}

/** The path of the first value below `levels` of nesting, for the error (only asked when there is one). */
function deepPath(value: object, levels: number, path = ''): string {
  for (const [key, v] of Object.entries(value)) {
    if (v === null || typeof v !== 'object' || !nestsDeeper(v, levels - 1)) continue;
    const at = Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key;
    return levels <= 1 ? at : deepPath(v, levels - 1, at);
  }
  return path || '(body)';
}

export function tooLarge(limit: number): ApiError {
  const size = limit % (1024 * 1024) === 0 ? `${limit / 1024 / 1024} MB` : `${Math.round(limit / 1024)} KB`;
  return new ApiError(
    'payload_too_large',
    `the request body is larger than ${size} (${limit} bytes), the most this route reads`,
    { limitBytes: limit },
  );
}
