/** QRIS (EMVCo merchant-presented QR) payloads: TLV parsing, CRC-16 check, and setting an amount. */

// Hand-written: the TLV grammar is a few lines, and the npm QRIS packages either skip the CRC check,
// rewrite the string with search-and-replace (which can hit "010211" inside a merchant template), or
// do not report where a broken payload stops parsing. The API needs all three done right.

/** One data object: two-digit tag, two-digit length, value; `offset` is where its tag starts. */
export interface TlvElement {
  tag: string;
  length: number;
  value: string;
  offset: number;
  children?: TlvElement[];
}

/** A payload that cannot be read as TLV; `offset` is the character where reading stopped. */
export class QrisParseError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message);
    this.name = 'QrisParseError';
  }
}

/** Tags whose value is itself a list of data objects (EMVCo QRCPS-MPM: 26-51, 62, 64, 80-99). */
function isTemplate(tag: string): boolean {
  const n = Number(tag);
  return (n >= 26 && n <= 51) || n === 62 || n === 64 || n >= 80;
}

/** Parses `text` (found at `base` in the whole payload) into data objects, templates recursively. */
export function parseTlv(text: string, base = 0): TlvElement[] {
  const out: TlvElement[] = [];
  let i = 0;
  while (i < text.length) {
    const at = base + i;
    if (text.length - i < 4) {
      throw new QrisParseError(
        `truncated at character ${at}: a data object needs a 2-digit tag and length`,
        at,
      );
    }
    const tag = text.slice(i, i + 2);
    const len = text.slice(i + 2, i + 4);
    if (!/^\d\d$/.test(tag))
      throw new QrisParseError(`expected a 2-digit tag at character ${at}, got "${tag}"`, at);
    if (!/^\d\d$/.test(len)) {
      throw new QrisParseError(
        `expected a 2-digit length for tag ${tag} at character ${at + 2}, got "${len}"`,
        at + 2,
      );
    }
    const length = Number(len);
    if (i + 4 + length > text.length) {
      throw new QrisParseError(
        `truncated: tag ${tag} at character ${at} declares ${length} characters but only ${text.length - i - 4} follow`,
        at,
      );
    }
    const value = text.slice(i + 4, i + 4 + length);
    const element: TlvElement = { tag, length, value, offset: at };
    if (isTemplate(tag)) element.children = parseTlv(value, at + 4);
    out.push(element);
    i += 4 + length;
  }
  return out;
}

/** The CRC of each byte value, so the checksum takes one table look-up per byte instead of eight shifts. */
const CRC_TABLE = Uint16Array.from({ length: 256 }, (_, byte) => {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  return crc;
});

/**
 * CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final xor) over the UTF-8 bytes, as four
 * upper-case hex digits. Written out because it is a dozen lines and the packages that have it are larger.
 * @example crc16('123456789') // '29B1'
 */
export function crc16(text: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc = ((crc << 8) & 0xffff) ^ (CRC_TABLE[(crc >> 8) ^ byte] as number);
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

const ACQUIRER_BY_GUID: Readonly<Record<string, string>> = {
  'COM.GO-JEK.WWW': 'GoPay',
  'ID.CO.SHOPEE.WWW': 'ShopeePay',
  'ID.DANA.WWW': 'DANA',
  'ID.CO.BANKMANDIRI.WWW': 'Bank Mandiri',
  'CO.XENDIT.WWW': 'Xendit',
  'ID.CO.TELKOM.WWW': 'LinkAja',
};

/** National Numbering System (NNS) codes of acquirers, digits 5-8 of a merchant PAN (9360NNNN…). */
const ACQUIRER_BY_NNS: Readonly<Record<string, string>> = {
  '0914': 'GoPay',
  '0918': 'ShopeePay',
  '0915': 'DANA',
  '0008': 'Bank Mandiri',
};

export interface MerchantAccount {
  tag: string;
  /** Reverse-domain name of the payment provider (sub-tag 00). */
  guid: string | null;
  /** Merchant PAN (sub-tag 01): 9360 + the acquirer's NNS + the merchant number. */
  pan: string | null;
  nns: string | null;
  merchant_id: string | null;
  criteria: string | null;
  /** The provider's name where the GUID or NNS is a known one. */
  name: string | null;
}

export interface QrisInfo {
  valid_crc: boolean;
  crc: { found: string; computed: string };
  type: 'static' | 'dynamic' | null;
  merchant_name: string | null;
  merchant_city: string | null;
  postal_code: string | null;
  country: string | null;
  /** ISO 4217 numeric code as in the payload ("360"). */
  currency: string | null;
  /** "IDR" for 360. */
  currency_alpha: string | null;
  /** Tag 54 as written (a decimal string); null on a static code. */
  amount: string | null;
  mcc: string | null;
  nmid: string | null;
  merchant_criteria: string | null;
  /** The first merchant account template (26-45): the primary acquirer. */
  acquirer: MerchantAccount | null;
  merchant_accounts: MerchantAccount[];
  additional_data: Record<string, string> | null;
  warnings: string[];
  elements: TlvElement[];
}

const sub = (el: TlvElement | undefined, tag: string) =>
  el?.children?.find((c) => c.tag === tag)?.value ?? null;

function merchantAccount(el: TlvElement): MerchantAccount {
  const guid = sub(el, '00');
  const pan = sub(el, '01');
  const nns = pan && /^9360\d{4}/.test(pan) ? pan.slice(4, 8) : null;
  return {
    tag: el.tag,
    guid,
    pan,
    nns,
    merchant_id: sub(el, '02'),
    criteria: sub(el, '03'),
    name: (guid && ACQUIRER_BY_GUID[guid.toUpperCase()]) || (nns && ACQUIRER_BY_NNS[nns]) || null,
  };
}

const ADDITIONAL_DATA_NAMES: Readonly<Record<string, string>> = {
  '01': 'bill_number',
  '02': 'mobile_number',
  '03': 'store_label',
  '04': 'loyalty_number',
  '05': 'reference_label',
  '06': 'customer_label',
  '07': 'terminal_label',
  '08': 'purpose',
  '09': 'consumer_data_request',
};

const REQUIRED_TAGS: ReadonlyArray<readonly [string, string]> = [
  ['00', 'payload format indicator'],
  ['01', 'point of initiation'],
  ['52', 'merchant category code'],
  ['53', 'currency'],
  ['58', 'country'],
  ['59', 'merchant name'],
  ['60', 'merchant city'],
];

/**
 * Reads a QRIS payload. Throws QrisParseError when it is not TLV (with the offset) or has no CRC as its
 * last data object; a CRC that does not match is reported in `valid_crc`, not thrown.
 */
export function parseQris(payload: string): QrisInfo {
  if (payload.length === 0) throw new QrisParseError('the payload is empty', 0);
  const elements = parseTlv(payload);
  const crcIndex = elements.findIndex((e) => e.tag === '63');
  const crcElement = elements[crcIndex];
  if (!crcElement) throw new QrisParseError('no CRC: tag 63 is missing', payload.length);
  const after = elements[crcIndex + 1];
  if (after)
    throw new QrisParseError(
      `tag 63 (CRC) must be the last data object; tag ${after.tag} follows`,
      after.offset,
    );
  if (crcElement.length !== 4) {
    throw new QrisParseError(
      `tag 63 (CRC) must be 4 characters, not ${crcElement.length}`,
      crcElement.offset,
    );
  }
  const computed = crc16(payload.slice(0, crcElement.offset + 4));
  const found = crcElement.value;
  const warnings: string[] = [];
  if (found !== found.toUpperCase() && found.toUpperCase() === computed) {
    warnings.push('the CRC is written in lower case; EMVCo specifies upper-case hex');
  }

  const top = (tag: string) => elements.find((e) => e.tag === tag);
  if (elements[0]?.tag !== '00' || elements[0].value !== '01') {
    warnings.push('the payload should open with 000201 (payload format indicator 01)');
  }
  for (const [tag, what] of REQUIRED_TAGS) if (!top(tag)) warnings.push(`tag ${tag} (${what}) is missing`);
  for (let i = 1; i < elements.length; i++) {
    const prev = elements[i - 1] as TlvElement;
    const cur = elements[i] as TlvElement;
    if (cur.tag <= prev.tag)
      warnings.push(`tag ${cur.tag} follows tag ${prev.tag}: top-level tags should ascend`);
  }

  const initiation = top('01')?.value;
  const type = initiation === '11' ? 'static' : initiation === '12' ? 'dynamic' : null;
  if (initiation !== undefined && type === null)
    warnings.push(`point of initiation ${initiation} is neither 11 nor 12`);
  const accounts = elements.filter((e) => Number(e.tag) >= 26 && Number(e.tag) <= 45).map(merchantAccount);
  if (accounts.length === 0) warnings.push('no merchant account template (tags 26-45)');
  const national = top('51');
  const additional = top('62');
  const currency = top('53')?.value ?? null;
  const amount = top('54')?.value ?? null;
  if (type === 'static' && amount !== null) warnings.push('a static code (01 = 11) carries an amount');

  return {
    valid_crc: found.toUpperCase() === computed,
    crc: { found, computed },
    type,
    merchant_name: top('59')?.value ?? null,
    merchant_city: top('60')?.value ?? null,
    postal_code: top('61')?.value ?? null,
    country: top('58')?.value ?? null,
    currency,
    currency_alpha: currency === '360' ? 'IDR' : null,
    amount,
    mcc: top('52')?.value ?? null,
    nmid: sub(national, '02'),
    merchant_criteria: sub(national, '03'),
    acquirer: accounts[0] ?? null,
    merchant_accounts: accounts,
    additional_data: additional?.children
      ? Object.fromEntries(additional.children.map((c) => [ADDITIONAL_DATA_NAMES[c.tag] ?? c.tag, c.value]))
      : null,
    warnings,
    elements,
  };
}

/** Why an amount cannot go into tag 54, or undefined when it can. */
export function amountProblem(amount: string): string | undefined {
  if (!/^\d+(\.\d{1,2})?$/.test(amount)) {
    return 'must be plain digits with an optional "." and up to 2 decimals, e.g. 15000 (no thousands separators)';
  }
  if (/^0\d/.test(amount)) return 'must not start with 0';
  if (Number(amount) <= 0) return 'must be more than 0';
  if (amount.length > 13) return 'must be at most 13 characters (tag 54 holds up to 13)';
  return undefined;
}

const tlv = (tag: string, value: string) => `${tag}${String(value.length).padStart(2, '0')}${value}`;

/**
 * The payload with `amount` set: point of initiation 12 (dynamic), tag 54 placed in tag order (replacing
 * one already there), every other data object copied byte for byte, and the CRC recomputed.
 * The caller checks the source CRC and the amount first.
 */
export function setQrisAmount(payload: string, amount: string): string {
  const elements = parseTlv(payload).filter((e) => e.tag !== '63' && e.tag !== '54');
  const raw = (e: TlvElement) => payload.slice(e.offset, e.offset + 4 + e.length);
  const parts: Array<{ tag: string; text: string }> = elements.map((e) => ({
    tag: e.tag,
    text: e.tag === '01' ? tlv('01', '12') : raw(e),
  }));
  if (!parts.some((p) => p.tag === '01')) {
    parts.splice(parts[0]?.tag === '00' ? 1 : 0, 0, { tag: '01', text: tlv('01', '12') });
  }
  const at = parts.findIndex((p) => p.tag > '54');
  parts.splice(at === -1 ? parts.length : at, 0, { tag: '54', text: tlv('54', amount) });
  const body = `${parts.map((p) => p.text).join('')}6304`;
  return body + crc16(body);
}
