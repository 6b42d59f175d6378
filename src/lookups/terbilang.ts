/** Whole numbers in Indonesian words ("terbilang"), up to 999 triliun, and the rupiah phrase of a receipt. */

const DIGITS = ['nol', 'satu', 'dua', 'tiga', 'empat', 'lima', 'enam', 'tujuh', 'delapan', 'sembilan'];

/** Scale words per group of three digits; above triliun the libraries disagree, so the API stops there. */
const SCALES = ['', 'ribu', 'juta', 'miliar', 'triliun'];

/** 999.999.999.999.999: the largest number spelled. */
export const TERBILANG_MAX = 10n ** 15n - 1n;

function belowThousand(n: number): string[] {
  const words: string[] = [];
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  if (hundreds === 1) words.push('seratus');
  else if (hundreds > 1) words.push(DIGITS[hundreds] as string, 'ratus');
  if (rest === 10) words.push('sepuluh');
  else if (rest === 11) words.push('sebelas');
  else if (rest > 11 && rest < 20) words.push(DIGITS[rest - 10] as string, 'belas');
  else {
    const tens = Math.floor(rest / 10);
    const ones = rest % 10;
    if (tens > 1) words.push(DIGITS[tens] as string, 'puluh');
    if (ones > 0) words.push(DIGITS[ones] as string);
  }
  return words;
}

/**
 * The number in lower-case words (PUEBI writes numbers in words in lower case).
 * "se-" is used for exactly one of seratus, seribu, sepuluh, sebelas; never "sejuta": 1,000,000 is
 * "satu juta", and 1,001,000 is "satu juta seribu".
 * @example terbilang(1250000n) // 'satu juta dua ratus lima puluh ribu'
 */
export function terbilang(n: bigint): string {
  if (n < 0n) return `minus ${terbilang(-n)}`;
  if (n === 0n) return 'nol';
  if (n > TERBILANG_MAX) throw new RangeError(`terbilang spells numbers up to ${TERBILANG_MAX}`);
  const words: string[] = [];
  let rest = n;
  const groups: number[] = [];
  while (rest > 0n) {
    groups.push(Number(rest % 1000n));
    rest /= 1000n;
  }
  for (let i = groups.length - 1; i >= 0; i--) {
    const group = groups[i] as number;
    if (group === 0) continue;
    if (i === 1 && group === 1) words.push('seribu');
    else words.push(...belowThousand(group), ...(SCALES[i] ? [SCALES[i] as string] : []));
  }
  return words.join(' ');
}

export const RUPIAH_CASES = ['title', 'sentence', 'lower'] as const;
export type RupiahCase = (typeof RUPIAH_CASES)[number];

/**
 * The amount as written on a receipt (kwitansi): the words followed by "rupiah". The default capitalises
 * each word ("Seratus Dua Puluh Lima Ribu Rupiah"), the receipt convention; `sentence` capitalises the
 * first word only and `lower` suits running text.
 */
export function rupiahPhrase(n: bigint, letterCase: RupiahCase = 'title'): string {
  const phrase = `${terbilang(n)} rupiah`;
  if (letterCase === 'lower') return phrase;
  if (letterCase === 'sentence') return phrase.charAt(0).toUpperCase() + phrase.slice(1);
  return phrase.replace(/\b\p{L}/gu, (c) => c.toUpperCase());
}

export type ParsedNumber = { ok: true; value: bigint } | { ok: false; message: string };

/**
 * Reads a whole number as an Indonesian writes it: plain digits or dots between groups of three
 * ("1.250.000"), optionally signed. A comma is the Indonesian decimal mark, so "1,5" is refused as a
 * decimal, and so is a dot that does not separate groups of three ("1.5").
 */
export function parseWholeNumber(text: string): ParsedNumber {
  const s = text.trim().replace(/^\u2212/, '-');
  const sign = s.startsWith('-') ? -1n : 1n;
  const body = s.replace(/^[-+]/, '').replace(/\s+/g, '');
  if (body === '') return { ok: false, message: 'must be a whole number, e.g. 1250000 or 1.250.000' };
  if (/^\d+$/.test(body)) return { ok: true, value: sign * BigInt(body) };
  if (/^\d{1,3}(\.\d{3})+$/.test(body)) return { ok: true, value: sign * BigInt(body.replaceAll('.', '')) };
  if (/^[\d.,]+$/.test(body)) {
    const lastDot = body.lastIndexOf('.');
    if (body.includes(',') || body.length - lastDot - 1 !== 3) {
      return {
        ok: false,
        message: `decimals are not spelled: send a whole number (got ${text.trim()}; in Indonesian "," is the decimal mark and "." separates groups of three digits)`,
      };
    }
    return {
      ok: false,
      message: `"." must separate groups of three digits, e.g. 1.250.000 (got ${text.trim()})`,
    };
  }
  return { ok: false, message: `must be a whole number, e.g. 1250000 or 1.250.000 (got ${text.trim()})` };
}
