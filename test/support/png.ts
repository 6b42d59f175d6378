// Reads PNGs in tests: the header's size, and the decoded pixels (pngjs) for checks on what was drawn.
import { PNG } from 'pngjs';

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** The width and height the IHDR chunk states, or throws when the bytes do not start as a PNG. */
export function pngHeaderSize(bytes: Buffer): { width: number; height: number } {
  if (!bytes.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG: bad signature');
  if (bytes.toString('latin1', 12, 16) !== 'IHDR') throw new Error('not a PNG: IHDR is not the first chunk');
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
}

export interface Pixels {
  width: number;
  height: number;
  /** `#rrggbb` of the pixel at (x, y). */
  at(x: number, y: number): string;
  /** How many different colours the rectangle holds. */
  colours(x0: number, y0: number, x1: number, y1: number): number;
}

/** Decodes the whole PNG (checking every chunk's CRC and the image data). */
export function decodePng(bytes: Buffer): Pixels {
  const png = PNG.sync.read(bytes);
  const at = (x: number, y: number) => {
    const i = (y * png.width + x) * 4;
    return `#${[png.data[i], png.data[i + 1], png.data[i + 2]].map((v) => (v ?? 0).toString(16).padStart(2, '0')).join('')}`;
  };
  return {
    width: png.width,
    height: png.height,
    at,
    colours(x0, y0, x1, y1) {
      const seen = new Set<string>();
      for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) seen.add(at(x, y));
      return seen.size;
    },
  };
}
