// SSE parsing: the frame splitter, joinFrames, isSingleDataLine and dataLinePayload, readSseFrame and
// objectKeyAt.
import { describe, expect, it } from 'vitest';
import {
  dataLinePayload,
  isSingleDataLine,
  joinFrames,
  MAX_FRAME_BYTES,
  objectKeyAt,
  readSseFrame,
  SseFrameSplitter,
} from './sse.js';

const text = (frames: Buffer[]) => frames.map((f) => f.toString('utf8'));

describe('SseFrameSplitter', () => {
  it('returns whole frames as slices of the chunk they came in', () => {
    const chunk = Buffer.from('data: {"a":1}\n\ndata: {"b":2}\n\n');
    const frames = new SseFrameSplitter().push(chunk);
    expect(text(frames)).toEqual(['data: {"a":1}\n\n', 'data: {"b":2}\n\n']);
    expect(frames[0]?.buffer).toBe(chunk.buffer);
  });

  it('joins a frame split across chunks, even inside its blank line', () => {
    const splitter = new SseFrameSplitter();
    expect(splitter.push(Buffer.from('data: {"a"'))).toEqual([]);
    expect(splitter.push(Buffer.from(':1}\n'))).toEqual([]);
    expect(text(splitter.push(Buffer.from('\ndata: {"b":2}\n\ndata')))).toEqual([
      'data: {"a":1}\n\n',
      'data: {"b":2}\n\n',
    ]);
    expect(text(splitter.push(Buffer.from(': [DONE]\n\n')))).toEqual(['data: [DONE]\n\n']);
  });

  it('splits CRLF and CR streams, including a CRLF blank line cut in the middle', () => {
    const splitter = new SseFrameSplitter();
    expect(text(splitter.push(Buffer.from('data: 1\r\n\r\ndata: 2\r\n\r')))).toEqual(['data: 1\r\n\r\n']);
    expect(text(splitter.push(Buffer.from('\ndata: 3\r\r')))).toEqual(['data: 2\r\n\r\n', 'data: 3\r\r']);
  });

  it('feeds one byte at a time without losing or merging frames', () => {
    const input = ': keep-alive\n\nevent: ping\ndata: {}\n\ndata: {"x":"\\n"}\r\n\r\n';
    const splitter = new SseFrameSplitter();
    const frames: Buffer[] = [];
    for (const byte of Buffer.from(input)) frames.push(...splitter.push(Buffer.from([byte])));
    expect(text(frames)).toEqual([
      ': keep-alive\n\n',
      'event: ping\ndata: {}\n\n',
      'data: {"x":"\\n"}\r\n\r\n',
    ]);
  });

  it('refuses to buffer a frame without end past the size limit', () => {
    const splitter = new SseFrameSplitter();
    splitter.push(Buffer.alloc(MAX_FRAME_BYTES, 0x61));
    expect(() => splitter.push(Buffer.from('more'))).toThrow(
      expect.objectContaining({ code: 'SSE_FRAME_TOO_LARGE' }),
    );
  });

  it('hands out an unterminated last frame at the end, but not trailing whitespace', async () => {
    const ending = new SseFrameSplitter();
    expect(text(ending.push(Buffer.from('data: 1\n\ndata: [DONE]\n')))).toEqual(['data: 1\n\n']);
    expect(ending.flush()?.toString()).toBe('data: [DONE]\n');
    const splitter = new SseFrameSplitter();
    splitter.push(Buffer.from('data: 1\n\n\n'));
    expect(splitter.flush()).toBeUndefined();
  });
});

describe('joinFrames', () => {
  it('joins frames that are adjacent in one chunk as a view of that chunk, without copying', () => {
    const chunk = Buffer.from('data: 1\n\n: skipped\n\ndata: 2\n\ndata: 3\n\n');
    const [one, skipped, two, three] = new SseFrameSplitter().push(chunk);
    const joined = joinFrames([two as Buffer, three as Buffer]);
    expect(joined.toString()).toBe('data: 2\n\ndata: 3\n\n');
    expect(joined.buffer).toBe(chunk.buffer);
    expect(joined.byteOffset).toBe(two?.byteOffset);
    expect(skipped?.toString()).toBe(': skipped\n\n');
    expect(joinFrames([one as Buffer, two as Buffer]).toString()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('copies frames from different chunks together, in order', () => {
    const joined = joinFrames([Buffer.from('data: a\n\n'), Buffer.from('data: b\n\n')]);
    expect(joined.toString()).toBe('data: a\n\ndata: b\n\n');
    expect(joinFrames([Buffer.from('data: a\n\n')]).toString()).toBe('data: a\n\n');
  });
});

describe('isSingleDataLine and dataLinePayload', () => {
  it('accept the common one-line frame and give its payload', () => {
    const frame = Buffer.from('data: {"a":1}\n\n');
    expect(isSingleDataLine(frame)).toBe(true);
    expect(dataLinePayload(frame).toString()).toBe('{"a":1}');
  });

  it('declines every other shape', () => {
    for (const frame of [
      'data:{"a":1}\n\n',
      'event: x\ndata: 1\n\n',
      'data: 1\r\n\r\n',
      ': hi\n\n',
      'data: 1\ndata: 2\n\n',
    ]) {
      expect(isSingleDataLine(Buffer.from(frame)), frame).toBe(false);
    }
  });
});

describe('readSseFrame', () => {
  it('reads event and data fields, skipping comments and one leading space', () => {
    expect(
      readSseFrame(Buffer.from(': note\r\nevent: message_start\r\ndata:{"a":\r\ndata:  1}\r\n\r\n')),
    ).toEqual({
      event: 'message_start',
      data: '{"a":\n 1}',
    });
    expect(readSseFrame(Buffer.from(': keep-alive\n\n'))).toEqual({ event: undefined, data: undefined });
  });
});

describe('objectKeyAt', () => {
  const usage = 'usage';
  it('finds a key followed by an object, with any spacing', () => {
    expect(objectKeyAt(Buffer.from('{"choices":[],"usage" : {"prompt_tokens":1}}'), usage)).toBe(14);
  });
  it('ignores null values, escaped text and plain string values', () => {
    expect(objectKeyAt(Buffer.from('{"usage":null}'), usage)).toBe(-1);
    expect(objectKeyAt(Buffer.from('{"content":"the \\"usage\\": {"}'), usage)).toBe(-1);
    expect(objectKeyAt(Buffer.from('{"content":"usage","usage":null}'), usage)).toBe(-1);
  });
  it('searches from the given index on, so one search can walk several frames', () => {
    const frames = Buffer.from(
      'data: {"usage":{"a":1}}\n\ndata: {"usage":null}\n\ndata: {"usage":{"b":2}}\n\n',
    );
    const first = objectKeyAt(frames, usage);
    expect(first).toBe(7);
    expect(objectKeyAt(frames, usage, first + 1)).toBe(frames.indexOf('"usage":{"b"'));
  });
});
