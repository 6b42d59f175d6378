// Upstream stream bodies for relay tests: the frames of the given chunks, grouped per chunk as the upstream reader groups them.
import { SseFrameSplitter } from '../../src/providers/sse.js';
import type { StreamedFrames } from '../../src/providers/streamed.js';

export function framesOf(chunks: string[]): StreamedFrames {
  async function* groups() {
    const splitter = new SseFrameSplitter();
    for (const chunk of chunks) {
      const frames = splitter.push(Buffer.from(chunk));
      if (frames.length > 0) yield frames;
    }
    const last = splitter.flush();
    if (last) yield [last];
  }
  return { groups: groups(), release: () => {} };
}
