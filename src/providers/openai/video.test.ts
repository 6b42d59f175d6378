// OpenAI's video object as the Sora adapter reads it: statuses, refusals, malformed answers, the content URL.
import { describe, expect, it } from 'vitest';
import { UpstreamError } from '../../http/upstream-error.js';
import { video, videoContent, videoState } from './video.js';

const object = (fields: Record<string, unknown>) => ({
  id: 'video_68d7512d07848190b3e45da0ecbebcde',
  object: 'video',
  model: 'sora-2',
  progress: 0,
  created_at: 1_767_225_600,
  size: '720x1280',
  seconds: '4',
  error: null,
  ...fields,
});

describe('the Sora video object', () => {
  it('maps queued, in_progress and completed to the queue states', () => {
    expect(videoState(video(object({ status: 'queued' })))).toEqual({ state: 'queued' });
    expect(videoState(video(object({ status: 'in_progress', progress: 40 })))).toEqual({ state: 'running' });
    expect(videoState(video(object({ status: 'completed', progress: 100 })))).toEqual({ state: 'succeeded' });
  });

  it('blames the caller for a moderation refusal only', () => {
    const refused = object({
      status: 'failed',
      error: { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' },
    });
    expect(videoState(video(refused))).toEqual({
      state: 'failed',
      message: 'Your request was blocked by our moderation system. (moderation_blocked)',
      callerFault: true,
    });
    const broken = object({
      status: 'failed',
      error: { code: 'internal_error', message: 'Generation failed.' },
    });
    expect(videoState(video(broken))).toMatchObject({ state: 'failed', callerFault: false });
    expect(videoState(video(object({ status: 'failed', error: null })))).toEqual({
      state: 'failed',
      message: 'the video failed',
      callerFault: false,
    });
  });

  it('refuses an answer without a usable id, or with a status it does not know', () => {
    for (const answer of [null, 'text', {}, object({ id: '../files/x' }), object({ id: 42 })])
      expect(() => video(answer)).toThrow(UpstreamError);
    expect(() => videoState(video(object({ status: 'cancelled' })))).toThrow(
      /unknown video status cancelled/,
    );
  });

  it('points at the MP4 variant under the base URL, with the key for that origin', () => {
    const headers = { authorization: 'Bearer sk-x' };
    expect(videoContent('video_1', 'https://api.openai.com/v1/', headers)).toEqual({
      kind: 'files',
      files: [
        {
          kind: 'url',
          url: 'https://api.openai.com/v1/videos/video_1/content?variant=video',
          contentType: 'video/mp4',
          headers,
        },
      ],
    });
  });
});
