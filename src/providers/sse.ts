/** Server-sent events from an upstream: whole frames as slices of the received bytes, and a frame's fields. */

const LF = 0x0a;
const CR = 0x0d;
const DATA_PREFIX = Buffer.from('data: ');
/** No chat chunk comes near this; a longer "frame" means the upstream is not sending SSE, and memory must stay bounded. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

/**
 * Splits a byte stream into SSE frames (each ending with its blank line). Written by hand because SSE
 * libraries decode events into strings, while kasir forwards OpenAI-compatible frames as the upstream's own
 * bytes: a frame stays a zero-copy slice of the received chunk unless it straddles two chunks.
 */
export class SseFrameSplitter {
  private pending: Buffer | undefined;
  /** Where the boundary search resumes in `pending`: a boundary may straddle the old end and the next chunk. */
  private resumeAt = 0;

  /** The frames completed by `chunk`, in order; a partial frame at the end is kept for the next call. */
  push(chunk: Buffer): Buffer[] {
    const buf = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    const frames: Buffer[] = [];
    let start = 0;
    let from = this.pending ? this.resumeAt : 0;
    for (;;) {
      const end = frameEnd(buf, Math.max(start, from));
      if (end < 0) break;
      frames.push(buf.subarray(start, end));
      start = end;
      from = end;
    }
    if (start < buf.length) {
      if (buf.length - start > MAX_FRAME_BYTES) {
        throw Object.assign(new Error(`an SSE frame grew past ${MAX_FRAME_BYTES} bytes`), {
          code: 'SSE_FRAME_TOO_LARGE',
        });
      }
      this.pending = buf.subarray(start);
      this.resumeAt = Math.max(0, this.pending.length - 3);
    } else {
      this.pending = undefined;
      this.resumeAt = 0;
    }
    return frames;
  }

  /** At the end of the stream: the last frame if its blank line never came (servers that end with `data: [DONE]\n`). */
  flush(): Buffer | undefined {
    const rest = this.pending;
    this.pending = undefined;
    this.resumeAt = 0;
    return rest && rest.toString('latin1').trim() !== '' ? rest : undefined;
  }
}

/** Index just past the first blank line at or after `from` (LF, CRLF or CR line endings), or -1. */
function frameEnd(buf: Buffer, from: number): number {
  const lf = buf.indexOf('\n\n', from, 'latin1');
  if (buf.indexOf(CR, from) < 0) return lf < 0 ? -1 : lf + 2;
  const ends = [lf < 0 ? -1 : lf + 2];
  const crlf = buf.indexOf('\r\n\r\n', from, 'latin1');
  ends.push(crlf < 0 ? -1 : crlf + 4);
  const crcr = buf.indexOf('\r\r', from, 'latin1');
  ends.push(crcr < 0 ? -1 : crcr + 2);
  const found = ends.filter((end) => end >= 0);
  return found.length ? Math.min(...found) : -1;
}

/** Yields the SSE frames of a byte stream as they complete. */
export async function* sseFrames(body: AsyncIterable<Buffer>): AsyncGenerator<Buffer> {
  const splitter = new SseFrameSplitter();
  for await (const chunk of body) {
    for (const frame of splitter.push(chunk)) yield frame;
  }
  const last = splitter.flush();
  if (last) yield last;
}

/**
 * The payload of a frame that is exactly one `data: …` line ended by `\n\n` — the shape OpenAI-compatible
 * servers send — as a slice of the frame; undefined for any other shape (use readSseFrame then).
 */
export function singleDataLine(frame: Buffer): Buffer | undefined {
  const len = frame.length;
  if (len < DATA_PREFIX.length + 2 || frame[len - 1] !== LF || frame[len - 2] !== LF) return undefined;
  if (frame.compare(DATA_PREFIX, 0, DATA_PREFIX.length, 0, DATA_PREFIX.length) !== 0) return undefined;
  const firstLf = frame.indexOf(LF, DATA_PREFIX.length);
  if (firstLf !== len - 2 || frame.indexOf(CR, DATA_PREFIX.length) >= 0) return undefined;
  return frame.subarray(DATA_PREFIX.length, len - 2);
}

export interface SseEvent {
  /** The `event:` field, when the frame names one. */
  event: string | undefined;
  /** The `data:` lines joined by `\n`; undefined for a frame without data (comments, keep-alives). */
  data: string | undefined;
}

/** Reads the fields of one frame as the SSE specification says (comments skipped, one leading space trimmed). */
export function readSseFrame(frame: Buffer): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const line of frame.toString('utf8').split(/\r\n|\r|\n/)) {
    if (line === '' || line.startsWith(':')) continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
  }
  return { event, data: data.length ? data.join('\n') : undefined };
}

/**
 * True when the JSON text has the key `"name"` followed by an object (`"name": {`). Lets the stream reader
 * parse only the few frames that carry usage or an error; a JSON string can only contain `"name"` with its
 * quotes escaped, so a match is always a key or a string value equal to the name.
 */
export function hasObjectKey(json: Buffer, quotedName: Buffer): boolean {
  let at = json.indexOf(quotedName);
  while (at >= 0) {
    let i = at + quotedName.length;
    while (json[i] === 0x20 || json[i] === LF || json[i] === CR || json[i] === 0x09) i++;
    if (json[i] === 0x3a /* : */) {
      i++;
      while (json[i] === 0x20 || json[i] === LF || json[i] === CR || json[i] === 0x09) i++;
      if (json[i] === 0x7b /* { */) return true;
    }
    at = json.indexOf(quotedName, at + quotedName.length);
  }
  return false;
}
