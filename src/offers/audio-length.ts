/**
 * The length of an audio (or video) file, read from its own container headers by music-metadata (MP3 frames and
 * Xing/VBRI headers, WAV/FLAC/Ogg/MP4/WebM headers), so speech-to-text is priced on what the caller sends rather
 * than on a length the caller declares. A file whose length cannot be read is refused before any payment.
 * music-metadata loads with the first file measured, not at start.
 */
import type { ModelEntry } from '../catalog/types.js';
import { invalidInput } from '../http/errors.js';

/** Seconds of audio in `bytes`, or undefined when the headers do not tell (or the format is not audio). */
export async function audioSeconds(bytes: Buffer, contentType: string): Promise<number | undefined> {
  try {
    const { parseBuffer } = await import('music-metadata');
    const meta = await parseBuffer(
      bytes,
      { mimeType: contentType, size: bytes.length },
      { duration: true, skipCovers: true },
    );
    const seconds = meta.format.duration;
    return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? seconds : undefined;
  } catch {
    return undefined;
  }
}

/** The input field a per-minute price reads its length from (`duration`), when the entry is priced so. */
export function lengthField(entry: ModelEntry): string | undefined {
  const price = entry.price;
  if (entry.category !== 'speech-to-text' || price?.kind !== 'per_minute') return undefined;
  if (price.duration.scale !== undefined && price.duration.scale !== 1) return undefined;
  return price.duration.field;
}

/**
 * The value of the length field for a file of `seconds`: whole seconds, rounded up, within the field's minimum.
 * A file longer than the field's maximum is refused, naming the file's field.
 */
export function billedSeconds(entry: ModelEntry, field: string, fileField: string, seconds: number): number {
  const props = (entry.input.properties ?? {}) as Record<string, { minimum?: number; maximum?: number }>;
  const schema = props[field] ?? {};
  const whole = Math.max(schema.minimum ?? 1, Math.ceil(seconds));
  if (schema.maximum !== undefined && whole > schema.maximum)
    throw invalidInput([
      {
        field: fileField,
        message: `is ${whole} s long; ${entry.id} takes at most ${schema.maximum} s of audio per call`,
      },
    ]);
  return whole;
}
