// QRIS codes: the CRC-16, parseQris reading a code's fields, setQrisAmount making a static code dynamic, and
// their properties.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { amountProblem, crc16, parseQris, QrisParseError, setQrisAmount } from './qris.js';

const tlv = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`;
const withCrc = (body: string) => `${body}6304${crc16(`${body}6304`)}`;

/** A static code laid out like a GoPay merchant QRIS (tags and sub-tags per the QRIS spec). */
function staticCode(name = 'WARUNG BU SRI', city = 'JAKARTA PUSAT'): string {
  return withCrc(
    tlv('00', '01') +
      tlv('01', '11') +
      tlv(
        '26',
        tlv('00', 'COM.GO-JEK.WWW') +
          tlv('01', '936009143456789012') +
          tlv('02', 'G123456789') +
          tlv('03', 'UMI'),
      ) +
      tlv('51', tlv('00', 'ID.CO.QRIS.WWW') + tlv('02', 'ID1025411846005') + tlv('03', 'UMI')) +
      tlv('52', '5812') +
      tlv('53', '360') +
      tlv('58', 'ID') +
      tlv('59', name) +
      tlv('60', city) +
      tlv('61', '10110') +
      tlv('62', tlv('07', 'A01')),
  );
}

// The decode example of the sunary/qris README (a ShopeePay-style dynamic code); its CRC 9635 checks out.
const SUNARY_SAMPLE =
  '00020101021226380016ID.CO.SHOPEE.WWW010201020815863724530336054061440005802ID5921PT. SHOPPEE INDONESIA' +
  '6007JAKARTA62180814gen by go-qris63049635';

// Published in a QRIS library's example as a valid static base; its GUID is 8 characters but declared as 12.
const GPNQR_SAMPLE =
  '00020101021126560012ID.GPNQR01189360091123456789020215ID20232541239390303UMI5204581253033605802ID' +
  '5914RESTORASI MESJID6013JAKARTA SELATAN61051234563044E67';

describe('crc16 (CRC-16/CCITT-FALSE)', () => {
  it('has the catalogue check value CRC("123456789") = 29B1', () => {
    expect(crc16('123456789')).toBe('29B1');
  });

  it('starts from 0xFFFF and pads to four upper-case digits', () => {
    expect(crc16('')).toBe('FFFF');
    expect(crc16('A')).toMatch(/^[0-9A-F]{4}$/);
  });
});

describe('parseQris', () => {
  it('reads a published sample and verifies its CRC', () => {
    expect(parseQris(SUNARY_SAMPLE)).toMatchObject({
      valid_crc: true,
      crc: { found: '9635', computed: '9635' },
      type: 'dynamic',
      merchant_name: 'PT. SHOPPEE INDONESIA',
      merchant_city: 'JAKARTA',
      country: 'ID',
      currency: '360',
      currency_alpha: 'IDR',
      amount: '144000',
      acquirer: { tag: '26', guid: 'ID.CO.SHOPEE.WWW', merchant_id: '15863724', name: 'ShopeePay' },
      additional_data: { purpose: 'gen by go-qris' },
    });
  });

  it('reads every field of a static code, the NMID from tag 51 and the acquirer from the PAN', () => {
    const info = parseQris(staticCode());
    expect(info).toMatchObject({
      valid_crc: true,
      type: 'static',
      merchant_name: 'WARUNG BU SRI',
      merchant_city: 'JAKARTA PUSAT',
      postal_code: '10110',
      amount: null,
      mcc: '5812',
      nmid: 'ID1025411846005',
      merchant_criteria: 'UMI',
      acquirer: { guid: 'COM.GO-JEK.WWW', nns: '0914', name: 'GoPay', criteria: 'UMI' },
      additional_data: { terminal_label: 'A01' },
      warnings: [],
    });
  });

  it('reports every merchant account template, the first as primary', () => {
    const body =
      tlv('00', '01') +
      tlv('01', '11') +
      tlv('26', tlv('00', 'ID.DANA.WWW') + tlv('01', '936009150000000001')) +
      tlv('27', tlv('00', 'ID.CO.BANKMANDIRI.WWW') + tlv('01', '936000080000000002')) +
      tlv('52', '5411') +
      tlv('53', '360') +
      tlv('58', 'ID') +
      tlv('59', 'TOKO') +
      tlv('60', 'BOGOR');
    const info = parseQris(withCrc(body));
    expect(info.merchant_accounts.map((a) => a.name)).toEqual(['DANA', 'Bank Mandiri']);
    expect(info.acquirer?.name).toBe('DANA');
  });

  it('flags a wrong CRC without throwing', () => {
    const tampered = staticCode().replace('WARUNG', 'WARUNK');
    const info = parseQris(tampered);
    expect(info.valid_crc).toBe(false);
    expect(info.crc.found).not.toBe(info.crc.computed);
  });

  it.each([
    ['garbage', 'hello world', 0],
    ['a truncated payload (cut inside tag 53)', SUNARY_SAMPLE.slice(0, 60), 54],
    ['a template whose inner length is wrong (a sample published as valid)', GPNQR_SAMPLE, 32],
    ['a payload without CRC', SUNARY_SAMPLE.slice(0, -8), SUNARY_SAMPLE.length - 8],
  ])('throws with the offset for %s', (_what, payload, offset) => {
    try {
      parseQris(payload);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(QrisParseError);
      expect((err as QrisParseError).offset).toBe(offset);
    }
  });

  it('refuses data after the CRC', () => {
    expect(() => parseQris(`${SUNARY_SAMPLE}0000`)).toThrow(/must be the last/);
  });
});

describe('setQrisAmount', () => {
  it('turns a static code dynamic with tag 54 between 53 and 58, as in the notes’ worked example', () => {
    const source = staticCode();
    const out = setQrisAmount(source, '15000');
    expect(out).toContain('010212');
    expect(out).toContain('53033605405150005802ID');
    const info = parseQris(out);
    expect(info).toMatchObject({
      valid_crc: true,
      type: 'dynamic',
      amount: '15000',
      nmid: 'ID1025411846005',
    });
    // The merchant templates are copied byte for byte.
    const template = (p: string, tag: string) => {
      const e = parseQris(p).elements.find((x) => x.tag === tag);
      return e && p.slice(e.offset, e.offset + 4 + e.length);
    };
    for (const tag of ['26', '51', '62']) expect(template(out, tag)).toBe(template(source, tag));
  });

  it('replaces an amount already present', () => {
    const info = parseQris(setQrisAmount(SUNARY_SAMPLE, '5000'));
    expect(info.amount).toBe('5000');
    expect(info.elements.filter((e) => e.tag === '54')).toHaveLength(1);
    expect(info.valid_crc).toBe(true);
  });

  it.each([
    ['15000', undefined],
    ['10071.50', undefined],
    ['1.250.000', /plain digits/],
    ['0', /more than 0/],
    ['015000', /start with 0/],
    ['12345678901234', /13 characters/],
    ['-5', /plain digits/],
  ])('amount %s', (amount, problem) => {
    const found = amountProblem(amount);
    if (problem) expect(found).toMatch(problem);
    else expect(found).toBeUndefined();
  });
});

describe('QRIS properties', () => {
  const text = (max: number) =>
    fc.string({
      unit: fc.constantFrom(...'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 .-'),
      minLength: 1,
      maxLength: max,
    });
  const amount = fc
    .tuple(
      fc.integer({ min: 1, max: 999_999_999 }),
      fc.option(fc.integer({ min: 0, max: 99 }), { nil: undefined }),
    )
    .map(([whole, cents]) =>
      cents === undefined ? String(whole) : `${whole}.${String(cents).padStart(2, '0')}`,
    );

  it('setting an amount keeps every other data object, sets 01=12 and 54, and the CRC verifies', () => {
    fc.assert(
      fc.property(text(25), text(15), amount, (name, city, value) => {
        const source = staticCode(name, city);
        const out = setQrisAmount(source, value);
        const before = parseQris(source);
        const after = parseQris(out);
        expect(after.valid_crc).toBe(true);
        expect(after.type).toBe('dynamic');
        expect(after.amount).toBe(value);
        const raw = (p: string, info: typeof before) =>
          info.elements
            .filter((e) => !['01', '54', '63'].includes(e.tag))
            .map((e) => p.slice(e.offset, e.offset + 4 + e.length));
        expect(raw(out, after)).toEqual(raw(source, before));
        // Setting an amount twice is the same as setting the last one.
        expect(setQrisAmount(out, '777')).toBe(setQrisAmount(source, '777'));
      }),
    );
  });

  it('any one changed character before the CRC is caught (bad CRC or no longer parseable)', () => {
    fc.assert(
      fc.property(text(25), fc.nat(), fc.constantFrom(...'0123456789AZ .'), (name, at, replacement) => {
        const source = staticCode(name);
        const pos = at % (source.length - 4);
        fc.pre(source[pos] !== replacement);
        const changed = source.slice(0, pos) + replacement + source.slice(pos + 1);
        let caught = false;
        try {
          caught = !parseQris(changed).valid_crc;
        } catch (err) {
          caught = err instanceof QrisParseError;
        }
        expect(caught).toBe(true);
      }),
    );
  });
});
