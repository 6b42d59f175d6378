// verifyNpwp and luhnValid: legacy 15-digit and 16-digit NPWPs, their Luhn check, branch and holder type.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { luhnValid, normalizeNpwp, verifyNpwp } from './npwp.js';

const TODAY = { year: 2026, month: 11, day: 22 };
const verify = (text: string) => {
  const n = normalizeNpwp(text);
  if (!n.ok) throw new Error(n.message);
  return verifyNpwp(n.digits, TODAY);
};

describe('verifyNpwp', () => {
  it('legacy 15 digits: 01.312.166.0 passes Luhn (0,2,3,2,2,2,6,3,0 = 20)', () => {
    expect(verify('01.312.166.0-091.000')).toMatchObject({
      ok: true,
      format: 'legacy15',
      normalized: '013121660091000',
      formatted: '01.312.166.0-091.000',
      parts: {
        taxpayer_id: '013121660',
        kpp_code: '091',
        branch_code: '000',
        is_head_office: true,
        taxpayer_type: 'company (badan)',
      },
      checks: [{ name: 'luhn', ok: true }],
    });
  });

  it('legacy 15 digits: 01.451.869.7-054.000 fails Luhn', () => {
    const r = verify('01.451.869.7-054.000');
    expect(r.ok).toBe(false);
    expect(r.checks[0]).toMatchObject({ name: 'luhn', ok: false });
  });

  it('reads a branch and the holder type', () => {
    const r = verify('013121660091001');
    expect(r.parts).toMatchObject({ branch_code: '001', is_head_office: false });
  });

  it('16 digits with a leading 0 is the legacy number, Luhn on digits 1-10', () => {
    expect(verify('0013121660091000')).toMatchObject({
      ok: true,
      format: 'npwp16',
      formatted: '01.312.166.0-091.000',
      parts: { kpp_code: '091', is_head_office: true },
    });
    expect(verify('0014518697054000').ok).toBe(false);
  });

  it('16 digits otherwise is the holder’s NIK, with the NIK checks', () => {
    const r = verify('3171011203850001');
    expect(r).toMatchObject({
      ok: true,
      format: 'nik16',
      parts: null,
      nik: { birth_date: '1985-03-12', gender: 'laki-laki', region: { kode: '31.71.01' } },
    });
    expect(r.checks.map((c) => c.name)).toContain('birth_date');
    expect(verify('3171013102850001').ok).toBe(false);
  });

  it('normalizes dots, dashes and spaces, and names the length problem', () => {
    expect(normalizeNpwp('01.312.166.0-091.000')).toEqual({ ok: true, digits: '013121660091000' });
    expect(normalizeNpwp('01.312.166.0-091.00')).toEqual({
      ok: false,
      message: 'must be 15 or 16 digits, got 14',
    });
    expect(normalizeNpwp('01/312/166').ok).toBe(false);
  });
});

describe('luhnValid', () => {
  it('matches the usual Luhn vectors', () => {
    expect(luhnValid('79927398713')).toBe(true);
    expect(luhnValid('79927398710')).toBe(false);
    expect(luhnValid('013121660')).toBe(true);
  });

  it('catches every single-digit error in a valid number', () => {
    const valid9 = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 8, maxLength: 8 }).map((ds) => {
      const body = ds.join('');
      const check = [...'0123456789'].find((c) => luhnValid(body + c)) as string;
      return body + check;
    });
    fc.assert(
      fc.property(valid9, fc.integer({ min: 0, max: 8 }), fc.integer({ min: 1, max: 9 }), (n, pos, delta) => {
        const changed = n.slice(0, pos) + String((Number(n[pos]) + delta) % 10) + n.slice(pos + 1);
        expect(luhnValid(n)).toBe(true);
        expect(luhnValid(changed)).toBe(false);
      }),
    );
  });
});
