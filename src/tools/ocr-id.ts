/**
 * tools/ocr-id: a vision model reads an identity document (KTP, SIM, KK, NPWP, a passport or a foreign driving
 * licence) into fixed fields; kasir checks the number's structure against what else the card shows
 * (vision/id-verification.ts). Nothing is kept: a kasir media object given as input is deleted once read.
 */
import type { ToolCall, ToolDeps, ToolFactory } from './types.js';
import { chooseVisionModel } from './vision/chat-model.js';
import { DOCUMENT_TYPES, type IdFields, STRUCTURAL_NOTE, verifyIdFields } from './vision/id-verification.js';
import { createImageReader, type ReadImage } from './vision/image-input.js';
import { aboutImage, askStructured } from './vision/structured.js';

const TEXT_FIELDS = [
  'issuing_country',
  'id_number',
  'full_name',
  'birth_place',
  'birth_date',
  'address',
  'rt_rw',
  'village',
  'district',
  'city',
  'province',
  'expiry_date',
  'blood_type',
  'nationality',
  'religion',
  'marital_status',
  'sim_class',
] as const;

const nullableText = { type: ['string', 'null'] };

/** Strict-mode schema of the fields: every one present, null when the document does not show it. */
export const ID_SCHEMA = {
  type: 'object',
  properties: {
    document_type: { type: 'string', enum: [...DOCUMENT_TYPES] },
    ...Object.fromEntries(TEXT_FIELDS.map((f) => [f, nullableText])),
    gender: { type: ['string', 'null'], enum: ['laki-laki', 'perempuan', null] },
  },
  required: ['document_type', ...TEXT_FIELDS, 'gender'],
  additionalProperties: false,
};

const SYSTEM = [
  'You read one identity document from a photo and copy its printed fields; you never invent a value. A field the',
  'document does not show, or that you cannot read with certainty, is null. document_type: ktp (Indonesian',
  'identity card), sim (Indonesian driving licence), kk (Kartu Keluarga; id_number is the No. KK), npwp (tax',
  'card), passport, driving_licence (foreign), other. issuing_country is an ISO 3166-1 alpha-3 code (IDN).',
  'id_number is the NIK, NPWP, KK, SIM or passport number as printed. Dates are YYYY-MM-DD (expiry_date null when',
  'the card says SEUMUR HIDUP). gender is laki-laki or perempuan (M/MALE/LAKI-LAKI → laki-laki). rt_rw as',
  'printed (002/003); village is the kelurahan/desa, district the kecamatan, city the kabupaten/kota.',
].join(' ');

export interface DocumentReading {
  fields: IdFields;
  verification: ReturnType<typeof verifyIdFields> & { note: string };
  model: string;
}

/**
 * Reads and checks one identity document already decoded (ocr-id, and kyc-verify, which also looks for the face on
 * it), or names the setting it lacks.
 */
export function createDocumentReader(
  deps: ToolDeps,
): { missing: string } | { read(image: ReadImage, call: ToolCall): Promise<DocumentReading> } {
  const model = chooseVisionModel(deps);
  if ('missing' in model) return model;
  return {
    async read(image, call) {
      const { value } = await askStructured<IdFields>(
        deps.chat,
        model,
        {
          name: 'identity_document',
          schema: ID_SCHEMA,
          system: SYSTEM,
          user: aboutImage('Read this document.', image.dataUri, 'high'),
          maxTokens: 800,
        },
        call,
      );
      return {
        fields: value,
        verification: { ...verifyIdFields(value), note: STRUCTURAL_NOTE },
        model: model.entry.id,
      };
    },
  };
}

export const ocrId: ToolFactory = (deps) => {
  const documents = createDocumentReader(deps);
  if ('missing' in documents) return documents;
  const images = createImageReader(deps);
  return {
    async run(input, call) {
      const image = await images.read(input, call, { deleteMedia: true });
      return { ...(await documents.read(image, call)) };
    },
  };
};
