/** Deterministic file contents for the fake upstreams: a SHA-256 hash chain seeded by a name, `size` bytes long. */
import { createHash } from 'node:crypto';

export function bytesFor(seed: string, size: number): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let at = 0; at < size; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}
