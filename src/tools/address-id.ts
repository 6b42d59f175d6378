/**
 * tools/address-id: a chat model splits a free-text Indonesian address into its parts (structured output), then
 * kasir resolves the kabupaten/kota and provinsi from its own region data (vision/address-resolve.ts).
 */
import { invalidInput } from '../http/errors.js';
import type { ToolFactory } from './types.js';
import { type AddressParts, resolveAddress } from './vision/address-resolve.js';
import { chooseChatModel } from './vision/chat-model.js';
import { askStructured } from './vision/structured.js';

const PARTS = [
  'jalan',
  'nomor',
  'rt',
  'rw',
  'kelurahan',
  'kecamatan',
  'kabupaten_kota',
  'provinsi',
  'kode_pos',
];

const nullableText = { type: ['string', 'null'] };

/** Strict-mode schema of the parts: every part present, null when the address does not say it. */
export const ADDRESS_SCHEMA = {
  type: 'object',
  properties: Object.fromEntries(PARTS.map((p) => [p, nullableText])),
  required: PARTS,
  additionalProperties: false,
};

const SYSTEM = [
  'You split one Indonesian postal address into its parts. Copy each part as written, without its type word',
  '(kecamatan "Coblong", not "Kec. Coblong"; jalan keeps "Jl."/"Jalan"). kelurahan is the kelurahan or desa;',
  'kabupaten_kota is the regency or city ("Kota Bandung", "Kabupaten Sleman", or just "Bandung" when the type is',
  'not written); rt and rw are the numbers only ("002"); kode_pos is the five-digit postal code. A part the',
  'address does not state is null: never guess it from your own knowledge.',
].join(' ');

export const addressId: ToolFactory = (deps) => {
  const model = chooseChatModel(
    deps,
    { name: 'ADDRESS_MODEL', value: deps.config.vision.addressModel },
    false,
  );
  if ('missing' in model) return model;
  return {
    async run(input, call) {
      const address = String(input.address).trim();
      if (!address) throw invalidInput([{ field: 'address', message: 'is blank' }]);
      const { value } = await askStructured<AddressParts>(
        deps.chat,
        model,
        { name: 'indonesian_address', schema: ADDRESS_SCHEMA, system: SYSTEM, user: address, maxTokens: 400 },
        call,
      );
      const resolved = resolveAddress(value);
      return {
        input: address,
        parsed: resolved.parsed,
        wilayah: resolved.wilayah,
        verified: resolved.verified,
        checks: resolved.checks,
        confidence: resolved.confidence,
        notes: resolved.notes,
        model: model.entry.id,
      };
    },
  };
};
