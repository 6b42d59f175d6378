/**
 * The random character of the random-character recipe: one pick from each list (who, look, place, style), joined
 * into the image prompt. Kept beside the recipes because the quote prices the longest prompt this can write.
 */

const WHO = [
  'a retired lighthouse keeper',
  'a young street-food vendor',
  'a traveling clockmaker',
  'a batik painter',
  'a deep-sea diver',
  'a forest ranger',
  'a jazz saxophonist',
  'a rice farmer',
  'a space station mechanic',
  'a night-market fortune teller',
  'a mountain guide',
  'a marine biologist',
  'a street magician',
  'a kite maker',
  'a librarian of forbidden books',
  'a wandering knight in patched armour',
] as const;

const LOOK = [
  'with silver hair and round glasses',
  'with a bright yellow raincoat',
  'with freckles and a wide grin',
  'wearing a hand-woven scarf',
  'with a scar across one eyebrow',
  'with paint-stained hands',
  'in a tailored emerald suit',
  'with a shaved head and kind eyes',
  'with braided hair full of beads',
  'wearing oversized headphones',
  'in a weathered leather jacket',
  'with a small owl on one shoulder',
] as const;

const PLACE = [
  'in a rainy neon alley',
  'on a volcanic beach at sunset',
  'in a greenhouse full of orchids',
  'on a rooftop above a busy harbour',
  'in a quiet temple courtyard',
  'in a cluttered workshop',
  'at a floating market at dawn',
  'in a snowy pine forest',
  'inside a vintage train carriage',
  'in a desert canyon under stars',
] as const;

const STYLE = [
  'cinematic photo, shallow depth of field',
  'soft watercolor illustration',
  'stylized 3D animation still',
  'hand-drawn anime style',
  'moody film photograph, 35mm grain',
  'bold comic book panel',
  'claymation style',
  'oil painting with visible brush strokes',
] as const;

export interface Character {
  who: string;
  look: string;
  place: string;
  style: string;
  prompt: string;
}

const promptOf = (who: string, look: string, place: string, style: string) =>
  `Portrait of ${who} ${look}, ${place}. ${style}, looking at the viewer, upper body in frame.`;

/** `pick(n)` returns an integer in [0, n): crypto randomness on a server, a fixed sequence in tests. */
export function randomCharacter(pick: (n: number) => number): Character {
  const who = WHO[pick(WHO.length)] as string;
  const look = LOOK[pick(LOOK.length)] as string;
  const place = PLACE[pick(PLACE.length)] as string;
  const style = STYLE[pick(STYLE.length)] as string;
  return { who, look, place, style, prompt: promptOf(who, look, place, style) };
}

const longest = (list: readonly string[]) => list.reduce((a, b) => (b.length > a.length ? b : a));

/**
 * The longest prompt `randomCharacter` can write: what the quote validates and prices the image step with, so a
 * model priced by prompt tokens is quoted at its ceiling.
 */
export const LONGEST_CHARACTER_PROMPT = promptOf(longest(WHO), longest(LOOK), longest(PLACE), longest(STYLE));
