/**
 * Real audio files for speech-to-text tests, whose length a container parser reads: a mono 8-bit PCM WAV of
 * any length (a quiet tone), a constant-bitrate MP3 of any length, and a local host serving them by path (as a public URL a caller passes).
 *
 *   const host = await startAudioHost({ '/call.wav': wav(90) });
 *   ... `${host.url}/call.wav` ... host.reads ...
 */
import { createServer } from 'node:http';
import { closeServer, listen } from './http.js';

/** A WAV (RIFF, PCM, 1 channel, 8 bits, 8 kHz unless `rate` says otherwise) of `seconds` of a quiet tone. */
export function wav(seconds: number, rate = 8000): Buffer {
  const RATE = rate;
  const samples = Math.round(seconds * RATE);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + samples, 4);
  header.write('WAVE', 8, 'latin1');
  header.write('fmt ', 12, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(RATE, 24);
  header.writeUInt32LE(RATE, 28); // bytes per second
  header.writeUInt16LE(1, 32); // block align
  header.writeUInt16LE(8, 34); // bits per sample
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(samples, 40);
  const data = Buffer.alloc(samples);
  for (let i = 0; i < samples; i++) data[i] = 128 + Math.round(8 * Math.sin((i * 2 * Math.PI * 440) / RATE));
  return Buffer.concat([header, data]);
}

/** One MPEG-1 Layer III frame header: 128 kbit/s, 44.1 kHz, joint stereo; its frame is 417 bytes, 1,152 samples. */
const MP3_FRAME_HEADER = Buffer.from([0xff, 0xfb, 0x90, 0x64]);

/**
 * An MP3 of about `seconds`: constant-bitrate frames (a valid header each, silent payload), whose length a parser
 * reads from the frames, as it does for a real CBR file.
 */
export function mp3(seconds: number): Buffer {
  const frames = Math.max(1, Math.round((seconds * 44_100) / 1152));
  const frame = Buffer.concat([MP3_FRAME_HEADER, Buffer.alloc(413)]);
  return Buffer.concat(Array.from({ length: frames }, () => frame));
}

export interface AudioHost {
  url: string;
  /** Paths read, in order. */
  reads: string[];
  close(): Promise<void>;
}

/** Serves each file at its path (`audio/wav` unless the path says otherwise); anything else is a 404. */
export async function startAudioHost(files: Record<string, Buffer>): Promise<AudioHost> {
  const host: AudioHost = { url: '', reads: [], close: () => closeServer(server) };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://audio.test').pathname;
    host.reads.push(path);
    const bytes = files[path];
    if (!bytes) return void res.writeHead(404).end();
    const type = path.endsWith('.mp3') ? 'audio/mpeg' : 'audio/wav';
    res.writeHead(200, { 'content-type': type, 'content-length': String(bytes.length) }).end(bytes);
  });
  host.url = await listen(server);
  return host;
}
