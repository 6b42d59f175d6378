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
    // Most upstreams never send a CR: one scan per chunk, instead of one per frame, says so.
    const lfOnly = buf.indexOf(CR, from) < 0;
    for (;;) {
      const end = frameEnd(buf, Math.max(start, from), lfOnly);
      if (end < 0) break;
      // A chunk that is exactly one frame (what an upstream sending one event per write gives) is that frame.
      frames.push(start === 0 && end === buf.length ? buf : buf.subarray(start, end));
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

/**
 * Index just past the first blank line at or after `from` (LF, CRLF or CR line endings), or -1.
 * `lfOnly`: the caller knows there is no CR at or after `from`.
 */
function frameEnd(buf: Buffer, from: number, lfOnly: boolean): number {
  // A search for a single byte is far cheaper than one for "\n\n", and a one-line frame has no other LF.
  let lf = buf.indexOf(LF, from);
  while (lf >= 0 && buf[lf + 1] !== LF) lf = buf.indexOf(LF, lf + 1);
  if (lfOnly) return lf < 0 ? -1 : lf + 2;
  const ends = [lf < 0 ? -1 : lf + 2];
  const crlf = buf.indexOf('\r\n\r\n', from, 'latin1');
  ends.push(crlf < 0 ? -1 : crlf + 4);
  const crcr = buf.indexOf('\r\r', from, 'latin1');
  ends.push(crcr < 0 ? -1 : crcr + 2);
  const found = ends.filter((end) => end >= 0);
  return found.length ? Math.min(...found) : -1;
}

/**
 * The frames' bytes as one buffer. Frames cut from one chunk and kept in order are adjacent views of the
 * same memory, so the usual case (a run of frames passed through untouched) is one view of the received
 * chunk, without a copy; anything else (a dropped or rewritten frame in between) is copied together.
 */
export function joinFrames(frames: Buffer[]): Buffer {
  const [first] = frames;
  if (!first) return Buffer.alloc(0);
  if (frames.length === 1) return first;
  let end = first.byteOffset;
  let adjacent = true;
  for (const frame of frames) {
    adjacent &&= frame.buffer === first.buffer && frame.byteOffset === end;
    end += frame.length;
  }
  const length = end - first.byteOffset;
  return adjacent ? Buffer.from(first.buffer, first.byteOffset, length) : Buffer.concat(frames, length);
}

/**
 * Whether a frame is exactly one `data: …` line ended by `\n\n`, the shape OpenAI-compatible servers send. A
 * check that allocates nothing: most such frames are passed on without looking at their payload.
 */
export function isSingleDataLine(frame: Buffer): boolean {
  const len = frame.length;
  if (len < DATA_PREFIX.length + 2 || frame[len - 1] !== LF || frame[len - 2] !== LF) return false;
  for (let i = 0; i < DATA_PREFIX.length; i++) if (frame[i] !== DATA_PREFIX[i]) return false;
  const firstLf = frame.indexOf(LF, DATA_PREFIX.length);
  return firstLf === len - 2 && frame.indexOf(CR, DATA_PREFIX.length) < 0;
}

/** The payload of a frame `isSingleDataLine` accepted, as a slice of it. */
export function dataLinePayload(frame: Buffer): Buffer {
  return frame.subarray(DATA_PREFIX.length, frame.length - 2);
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
 * The JSON object an SSE frame carries in its data, or undefined for a frame without data (a comment, a
 * keep-alive). `notJson` builds the error for data that does not parse.
 */
export function jsonFrame(frame: Buffer, notJson: () => Error): Record<string, unknown> | undefined {
  const { data } = readSseFrame(frame);
  if (data === undefined) return undefined;
  try {
    return JSON.parse(data) as Record<string, unknown>;
  } catch {
    throw notJson();
  }
}

/** `name"` per key name: the search leaves out the opening quote, the most common byte in JSON. */
const keyNeedles = new Map<string, Buffer>();

/**
 * Where, at or after `from`, the JSON text has the key `"name"` followed by an object (`"name": {`); -1 if
 * nowhere. Lets the stream reader parse only the few frames that carry usage or an error, with one search
 * over everything that arrived together; a JSON string can only contain `"name"` with its quotes escaped,
 * so a match is always a key or a string value equal to the name.
 */
export function objectKeyAt(json: Buffer, name: string, from = 0): number {
  let needle = keyNeedles.get(name);
  if (!needle) {
    needle = Buffer.from(`${name}"`);
    keyNeedles.set(name, needle);
  }
  let at = json.indexOf(needle, from + 1);
  while (at >= 0) {
    let i = at + needle.length;
    if (json[at - 1] === 0x22 /* " */) {
      while (json[i] === 0x20 || json[i] === LF || json[i] === CR || json[i] === 0x09) i++;
      if (json[i] === 0x3a /* : */) {
        i++;
        while (json[i] === 0x20 || json[i] === LF || json[i] === CR || json[i] === 0x09) i++;
        if (json[i] === 0x7b /* { */) return at - 1;
      }
    }
    at = json.indexOf(needle, i);
  }
  return -1;
}
