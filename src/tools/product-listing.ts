/**
 * tools/product-listing: a vision model writes marketplace listing copy (Indonesian and English) from one product
 * photo, stating only what the photo shows (anything else is null). Nothing is stored: a kasir media object given as
 * input stays the caller's (it is not an identity document).
 */
import type { ToolFactory } from './types.js';
import { chooseVisionModel } from './vision/chat-model.js';
import { createImageReader } from './vision/image-input.js';
import { aboutImage, askStructured } from './vision/structured.js';

const text = { type: 'string' };
const nullableText = { type: ['string', 'null'] };
const words = { type: 'array', items: { type: 'string' } };

/** Strict-mode schema of the listing. */
export const LISTING_SCHEMA = {
  type: 'object',
  properties: {
    title_id: text,
    title_en: text,
    description_id: text,
    description_en: text,
    category: nullableText,
    condition: { type: ['string', 'null'], enum: ['new', 'used', null] },
    material: nullableText,
    colors: words,
    tags: words,
  },
  required: [
    'title_id',
    'title_en',
    'description_id',
    'description_en',
    'category',
    'condition',
    'material',
    'colors',
    'tags',
  ],
  additionalProperties: false,
};

const SYSTEM = [
  'You write a marketplace listing (Tokopedia, Shopee) for the product in the photo: a title and a short',
  'description in Indonesian (title_id, description_id) and in English (title_en, description_en), a category',
  '(marketplace category path, e.g. "Fashion Pria > Sepatu"), condition (new or used), material, colours (words',
  'in Indonesian) and up to 10 search tags. State only what the photo shows: no brand, size, price, material or',
  'condition that cannot be seen; such a field is null, and the descriptions do not claim it. The descriptions',
  'are plain prose of at most 80 words.',
].join(' ');

export const productListing: ToolFactory = (deps) => {
  const model = chooseVisionModel(deps);
  if ('missing' in model) return model;
  const images = createImageReader(deps);
  return {
    async run(input, call) {
      const image = await images.read(input, call, { deleteMedia: false });
      const { value } = await askStructured<Record<string, unknown>>(
        deps.chat,
        model,
        {
          name: 'product_listing',
          schema: LISTING_SCHEMA,
          system: SYSTEM,
          user: aboutImage('Write the listing for this product.', image.dataUri, 'auto'),
          maxTokens: 900,
        },
        call,
      );
      return { listing: value, model: model.entry.id };
    },
  };
};
