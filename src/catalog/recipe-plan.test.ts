// Recipe plans: which models a recipe's steps run, with what inputs, at what quoted price, and which field a
// refusal names.
import { describe, expect, it } from 'vitest';
import { loadCatalog } from './load.js';
import { LONGEST_CHARACTER_PROMPT, randomCharacter } from './recipe-character.js';
import { imagePrompt, planRecipe } from './recipe-plan.js';
import type { RecipeEntry } from './types.js';

// Golden amounts are worked out by hand beside each expectation (micro-USD, margin 0 unless said).
const catalog = loadCatalog({ marginPercent: { '*': 0 } });

function recipe(name: string): RecipeEntry {
  const e = catalog.find(`recipes/${name}`);
  if (e?.kind !== 'recipe') throw new Error(`no recipe ${name}`);
  return e;
}

function plan(name: string, given: Record<string, unknown>) {
  const r = recipe(name);
  const planned = planRecipe(catalog, r, given, imagePrompt(r, given));
  if (!planned.ok) throw new Error(JSON.stringify(planned.errors));
  return planned.plan;
}

const quote = (name: string, given: Record<string, unknown>) => {
  const r = recipe(name);
  const checked = catalog.validate(r, given);
  if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
  return catalog.quote(r, checked.value, 'prepaid').costMicroUsd;
};

describe('recipe plans', () => {
  it("sell each recipe's own steps at its flat price, which covers them", () => {
    // FLUX [schnell] 1 MP 3,000 + Kling 2.5 Turbo Pro 5 s 350,000 = 353,000 ≤ 445,550.
    const p = plan('prompt-to-video', { prompt: 'a lighthouse' });
    expect(p.image.quote.costMicroUsd + p.video.quote.costMicroUsd).toBe(353_000);
    expect(quote('prompt-to-video', { prompt: 'a lighthouse' })).toBe(445_550);
    // FLUX1.1 [pro] 1 MP 40,000 + Wan 2.5 1080p 5 s × 150,000 = 790,000 ≤ 844,300.
    const hd = plan('prompt-to-video-1080p', { prompt: 'x' });
    expect(hd.image.quote.costMicroUsd + hd.video.quote.costMicroUsd).toBe(790_000);
    // Nano Banana 39,000 + Veo 3.1 Fast 720p silent 4 s × 100,000 = 439,000 ≤ 470,750.
    const veo = plan('prompt-to-video-veo', { prompt: 'x' });
    expect(veo.image.quote.costMicroUsd + veo.video.quote.costMicroUsd).toBe(439_000);
    // Nano Banana 39,000 + Veo 3.1 Fast 720p with sound 6 s × 150,000 = 939,000 ≤ 997,500.
    const who = plan('random-character', {});
    expect(who.image.quote.costMicroUsd + who.video.quote.costMicroUsd).toBe(939_000);
    expect(quote('random-character', {})).toBe(997_500);
  });

  it("sets the caller's duration and resolution in the video model's own terms", () => {
    expect(plan('prompt-to-video', { prompt: 'x', duration: 10 }).video.input.duration).toBe('10');
    expect(plan('prompt-to-video-veo', { prompt: 'x', duration: 8 }).video.input.duration).toBe('8s');
    const wan = plan('prompt-to-video-1080p', { prompt: 'x', resolution: '720P' });
    expect(wan.video.input.resolution).toBe('720p');
    // Runway takes its start frame in promptImage, but also needs a ratio no recipe field sets: refused, named.
    const r = recipe('prompt-to-video');
    const given = { prompt: 'x', videoModel: 'runwayml/gen4_turbo', duration: 7 };
    expect(planRecipe(catalog, r, given, 'x')).toEqual({
      ok: false,
      errors: [{ field: 'videoModel', message: 'runwayml/gen4_turbo: ratio is required' }],
    });
  });

  it('gives a chosen model only the step settings it understands', () => {
    // Veo's own settings: Kling has a duration field but not "4s", and no resolution or generate_audio.
    const kling = plan('prompt-to-video-veo', {
      prompt: 'x',
      videoModel: 'kwaivgi/kling-v2.5-turbo-pro-i2v',
    });
    expect(kling.video.input).not.toHaveProperty('resolution');
    expect(kling.video.input).not.toHaveProperty('generate_audio');
    expect(kling.video.input.duration).toBe('5');
    const veo = plan('prompt-to-video-veo', { prompt: 'x', videoModel: 'google/veo-3.1-i2v' });
    expect(veo.video.input).toMatchObject({ duration: '4s', generate_audio: false, aspect_ratio: '16:9' });
  });

  it('quotes a dearer choice at the sum of its steps', () => {
    // FLUX [schnell] 3,000 + Kling 10 s 700,000.
    expect(quote('prompt-to-video', { prompt: 'x', duration: 10 })).toBe(703_000);
    // FLUX [schnell] 3,000 + Veo 3.1 720p with sound, its default 8 s × 400,000.
    expect(quote('prompt-to-video', { prompt: 'x', videoModel: 'google/veo-3.1-i2v' })).toBe(3_203_000);
    // A cheaper choice still pays the recipe's price.
    expect(quote('prompt-to-video-1080p', { prompt: 'x', resolution: '480p' })).toBe(844_300);
  });

  it('names the recipe field a refusal comes from', () => {
    const errors = (name: string, given: Record<string, unknown>) => {
      const checked = catalog.validate(recipe(name), given);
      return checked.ok ? [] : checked.errors.map((e) => e.field);
    };
    expect(errors('prompt-to-video', { prompt: 'x', duration: 7 })).toEqual(['duration']);
    expect(errors('prompt-to-video', { prompt: 'x', resolution: '720p' })).toEqual(['resolution']);
    expect(errors('prompt-to-video', { prompt: 'x', videoModel: 'openai/sora-2' })).toEqual(['videoModel']);
    expect(errors('prompt-to-video', { prompt: 'x', imageModel: 'openai/tts-1' })).toEqual(['imageModel']);
    expect(errors('prompt-to-video', { prompt: 'x', videoModel: 'runwayml/gen4_turbo' })).toEqual([
      'videoModel',
    ]);
    expect(errors('prompt-to-video', {})).toEqual(['prompt']);
    expect(errors('random-character', {})).toEqual([]);
  });

  it('writes random characters no longer than the one quotes are made with', () => {
    let seed = 0;
    for (let i = 0; i < 200; i++) {
      const c = randomCharacter((n) => (seed++ * 7919) % n);
      expect(c.prompt.length).toBeLessThanOrEqual(LONGEST_CHARACTER_PROMPT.length);
      expect(c.prompt).toContain(c.who);
    }
    const r = recipe('random-character');
    expect(imagePrompt(r, { prompt: 'pirates' }, 'Portrait of a kite maker.')).toBe(
      'Portrait of a kite maker. Theme: pirates.',
    );
  });
});
