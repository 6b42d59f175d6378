// terbilang: numbers read out in Indonesian words (known readings and properties), rupiahPhrase and
// parseWholeNumber.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseWholeNumber, rupiahPhrase, TERBILANG_MAX, terbilang } from './terbilang.js';

const DIGIT_VALUES: Record<string, bigint> = {
  nol: 0n,
  satu: 1n,
  dua: 2n,
  tiga: 3n,
  empat: 4n,
  lima: 5n,
  enam: 6n,
  tujuh: 7n,
  delapan: 8n,
  sembilan: 9n,
};
const SCALE_VALUES: Record<string, bigint> = {
  ribu: 1000n,
  juta: 10n ** 6n,
  miliar: 10n ** 9n,
  triliun: 10n ** 12n,
};

/** An independent reader of the words, to check that the words say the number they were made from. */
function readWords(text: string): bigint {
  const tokens = text.split(' ');
  const sign = tokens[0] === 'minus' ? -1n : 1n;
  if (sign < 0n) tokens.shift();
  let total = 0n;
  let group = 0n;
  let lastDigit = 0n;
  for (const t of tokens) {
    const digit = DIGIT_VALUES[t];
    if (digit !== undefined) {
      group += digit;
      lastDigit = digit;
    } else if (t === 'sepuluh') group += 10n;
    else if (t === 'sebelas') group += 11n;
    else if (t === 'seratus') group += 100n;
    else if (t === 'seribu') total += 1000n;
    else if (t === 'belas') group += 10n;
    else if (t === 'puluh') group += lastDigit * 9n;
    else if (t === 'ratus') group += lastDigit * 99n;
    else if (SCALE_VALUES[t] !== undefined) {
      total += group * SCALE_VALUES[t];
      group = 0n;
    } else throw new Error(`unknown word ${t} in "${text}"`);
  }
  return sign * (total + group);
}

const VOCABULARY = new Set([
  ...Object.keys(DIGIT_VALUES),
  ...Object.keys(SCALE_VALUES),
  'sepuluh',
  'sebelas',
  'seratus',
  'seribu',
  'belas',
  'puluh',
  'ratus',
  'minus',
]);

describe('terbilang: known readings (KBBI forms, as in the usual terbilang test suites)', () => {
  it.each([
    [0n, 'nol'],
    [7n, 'tujuh'],
    [10n, 'sepuluh'],
    [11n, 'sebelas'],
    [12n, 'dua belas'],
    [19n, 'sembilan belas'],
    [20n, 'dua puluh'],
    [21n, 'dua puluh satu'],
    [100n, 'seratus'],
    [101n, 'seratus satu'],
    [110n, 'seratus sepuluh'],
    [111n, 'seratus sebelas'],
    [200n, 'dua ratus'],
    [999n, 'sembilan ratus sembilan puluh sembilan'],
    [1000n, 'seribu'],
    [1001n, 'seribu satu'],
    [1100n, 'seribu seratus'],
    [2000n, 'dua ribu'],
    [11000n, 'sebelas ribu'],
    [21000n, 'dua puluh satu ribu'],
    [101000n, 'seratus satu ribu'],
    [1000000n, 'satu juta'],
    [1001000n, 'satu juta seribu'],
    [1250000n, 'satu juta dua ratus lima puluh ribu'],
    [1000000000n, 'satu miliar'],
    [1000000000000n, 'satu triliun'],
    [
      TERBILANG_MAX,
      'sembilan ratus sembilan puluh sembilan triliun sembilan ratus sembilan puluh sembilan miliar ' +
        'sembilan ratus sembilan puluh sembilan juta sembilan ratus sembilan puluh sembilan ribu ' +
        'sembilan ratus sembilan puluh sembilan',
    ],
    [-5n, 'minus lima'],
    [-1000n, 'minus seribu'],
  ])('%s → %s', (n, words) => {
    expect(terbilang(n)).toBe(words);
  });

  it('refuses numbers above 999 triliun', () => {
    expect(() => terbilang(TERBILANG_MAX + 1n)).toThrow(RangeError);
  });
});

describe('terbilang: properties', () => {
  const spellable = fc.bigInt({ min: -TERBILANG_MAX, max: TERBILANG_MAX });

  it('the words read back as the number they were made from', () => {
    fc.assert(fc.property(spellable, (n) => readWords(terbilang(n)) === n));
  });

  it('uses only the vocabulary, single spaces, and the se- forms instead of "satu ratus/ribu/puluh/belas"', () => {
    fc.assert(
      fc.property(spellable, (n) => {
        const words = terbilang(n);
        expect(words.split(' ').every((w) => VOCABULARY.has(w))).toBe(true);
        // "satu ratus/ribu" is wrong where the whole hundreds or thousands group is one ("dua puluh satu ribu" is right).
        expect(words).not.toMatch(
          /(^|(minus|ribu|juta|miliar|triliun) )satu (ratus|ribu)|satu (puluh|belas)|sejuta|semiliar|setriliun/,
        );
        expect(words.includes('nol')).toBe(n === 0n);
      }),
    );
  });

  it('a number is its millions followed by its remainder: words(a·10⁶ + b) = words(a·10⁶) + words(b)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 999_999_999n }),
        fc.bigInt({ min: 1n, max: 999_999n }),
        (a, b) => {
          const millions = a * 10n ** 6n;
          expect(terbilang(millions + b)).toBe(`${terbilang(millions)} ${terbilang(b)}`);
        },
      ),
    );
  });

  it('reads back numbers written with Indonesian thousands separators', () => {
    const idFormat = new Intl.NumberFormat('id-ID', { useGrouping: true });
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: TERBILANG_MAX }), (n) => {
        expect(parseWholeNumber(idFormat.format(n))).toEqual({ ok: true, value: n });
        expect(parseWholeNumber(String(n))).toEqual({ ok: true, value: n });
      }),
    );
  });
});

describe('rupiahPhrase', () => {
  it('capitalises each word by default, as on a receipt', () => {
    expect(rupiahPhrase(125000n)).toBe('Seratus Dua Puluh Lima Ribu Rupiah');
  });

  it('offers sentence and lower case', () => {
    expect(rupiahPhrase(1250000n, 'sentence')).toBe('Satu juta dua ratus lima puluh ribu rupiah');
    expect(rupiahPhrase(1250000n, 'lower')).toBe('satu juta dua ratus lima puluh ribu rupiah');
  });
});

describe('parseWholeNumber', () => {
  it.each([
    ['1.250.000', 1250000n],
    ['1250000', 1250000n],
    [' 42 ', 42n],
    ['-1.000', -1000n],
    ['−7', -7n],
    ['+3', 3n],
    ['007', 7n],
  ])('%s → %s', (text, value) => {
    expect(parseWholeNumber(text)).toEqual({ ok: true, value });
  });

  it.each(['1,5', '1.5', '12,50', '1.250,75', '0.25'])('refuses the decimal %s and says so', (text) => {
    const parsed = parseWholeNumber(text);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.message).toMatch(/decimals are not spelled/);
  });

  it.each(['', 'abc', '1.25.000', '12a', '--1'])('refuses %j', (text) => {
    expect(parseWholeNumber(text).ok).toBe(false);
  });
});
