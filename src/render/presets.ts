/** Output sizes of the renderers, in px: the card presets, og-image and youtube-thumbnail. */

export const CARD_PRESETS = {
  og: { width: 1200, height: 630 },
  'instagram-square': { width: 1080, height: 1080 },
  story: { width: 1080, height: 1920 },
  linkedin: { width: 1200, height: 627 },
  podcast: { width: 3000, height: 3000 },
} as const;

export type CardPreset = keyof typeof CARD_PRESETS;

export const OG_SIZE = CARD_PRESETS.og;
export const YOUTUBE_SIZE = { width: 1280, height: 720 } as const;
