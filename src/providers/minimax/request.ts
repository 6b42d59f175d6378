/**
 * MiniMax's requests: speech `POST /v1/t2a_v2` `{ model, text, stream, voice_setting, audio_setting,
 * language_boost, output_format }` and music `POST /v1/music_generation` `{ model, prompt, lyrics, audio_setting,
 * output_format }`. kasir sends `output_format: 'hex'` and `stream: false` whatever the caller asked: the audio then
 * comes back inside the one answer, to be re-hosted, instead of as a link on a storage host kasir cannot vouch for.
 */
import type { MediaCall } from '../media/types.js';

export function miniMaxRequest(call: MediaCall): { path: string; body: Record<string, unknown> } {
  const music = call.endpoint.startsWith('music');
  const body: Record<string, unknown> = { ...call.input, model: call.endpoint, output_format: 'hex' };
  if (!music) body.stream = false;
  return { path: music ? '/v1/music_generation' : '/v1/t2a_v2', body };
}

/** The audio format asked for (`audio_setting.format`), MiniMax's default being mp3. */
export function miniMaxFormat(call: MediaCall): string {
  const setting = call.input.audio_setting as { format?: unknown } | undefined;
  return typeof setting?.format === 'string' ? setting.format : 'mp3';
}
