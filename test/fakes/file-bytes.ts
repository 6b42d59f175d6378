/**
 * Deterministic file contents for the fake upstreams: a SHA-256 hash chain seeded by a name, `size` bytes long,
 * starting with the signature of the format the fake declares, as a real provider's file does (bytes of no
 * signature are sniffed as whatever a few of their first bytes happen to spell: one run in thousands, an AC3 file).
 */
import { createHash } from 'node:crypto';

/** The first bytes of each format the fakes serve, as file-type recognises them. */
const SIGNATURES: Record<string, Buffer> = {
  'video/mp4': Buffer.concat([
    Buffer.from([0, 0, 0, 0x18]),
    Buffer.from('ftypmp42\0\0\0\0mp42isom', 'latin1'),
  ]),
  'image/png': Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'),
  'image/jpeg': Buffer.from('ffd8ffe000104a464946000101', 'hex'),
  'image/webp': Buffer.from('RIFF\0\0\0\0WEBPVP8 ', 'latin1'),
  'audio/mpeg': Buffer.from('fffb9064', 'hex'),
  'audio/wav': Buffer.from('RIFF\0\0\0\0WAVEfmt ', 'latin1'),
  'audio/flac': Buffer.from('fLaC', 'latin1'),
  'audio/aac': Buffer.from('fff15080', 'hex'),
  'audio/opus': Buffer.concat([Buffer.from('OggS'), Buffer.alloc(24), Buffer.from('OpusHead')]),
};

/**
 * `size` bytes seeded by `seed`; with `type`, they start with that format's signature (a type with none, such as
 * raw PCM, is the hash chain alone).
 */
export function bytesFor(seed: string, size: number, type?: string): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let at = 0; at < size; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  const signature = type ? SIGNATURES[type] : undefined;
  if (type && !signature && type !== 'audio/pcm')
    throw new Error(`no signature for ${type} in the fakes' file bytes`);
  signature?.copy(out, 0, 0, Math.min(signature.length, size));
  return out;
}
