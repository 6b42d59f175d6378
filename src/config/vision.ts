/**
 * Settings of the vision and identity tools (tools/address-id, tools/ocr-id, tools/product-listing): which chat
 * model each one calls, and how large an image they take.
 */
import { int, optionalString, type SettingsArea } from './setting.js';

/**
 * The chat models tried by default, in order: the first one whose provider this server has a key for serves.
 * Small, inexpensive models that read images and answer in a JSON schema; one per major provider so whichever the
 * operator configured is used.
 */
export const VISION_MODEL_PREFERENCE = [
  'openai/gpt-4.1-mini',
  'google/gemini-2.5-flash',
  'anthropic/claude-haiku-4-5',
  'openai/gpt-4o-mini',
  'xai/grok-4-1-fast-reasoning',
  'meta-llama/llama-4-maverick',
] as const;

export const visionEnvShape = {
  VISION_MODEL: optionalString,
  ADDRESS_MODEL: optionalString,
  VISION_IMAGE_MAX_BYTES: int(1024).default(10 * 1024 * 1024),
  VISION_IMAGE_MAX_PIXELS: int(1).default(40_000_000),
  VISION_IMAGE_SEND_SIDE: int(256, 8192).default(2048),
};

export interface VisionConfig {
  /** Catalog id of the chat model reading images (ocr-id, product-listing); unset = VISION_MODEL_PREFERENCE. */
  visionModel: string | undefined;
  /** Catalog id of the chat model parsing addresses (address-id); unset = VISION_MODEL_PREFERENCE. */
  addressModel: string | undefined;
  /** The most an image input may weigh, URL or inline. */
  imageMaxBytes: number;
  /** The most pixels (width × height) an image input may have once decoded. */
  imageMaxPixels: number;
  /** The longest side of the image the model is sent (a larger one is scaled down, aspect kept). */
  imageSendSide: number;
}

export function parseVision(e: Record<string, unknown>): VisionConfig {
  return {
    visionModel: e.VISION_MODEL as string | undefined,
    addressModel: e.ADDRESS_MODEL as string | undefined,
    imageMaxBytes: Number(e.VISION_IMAGE_MAX_BYTES),
    imageMaxPixels: Number(e.VISION_IMAGE_MAX_PIXELS),
    imageSendSide: Number(e.VISION_IMAGE_SEND_SIDE),
  };
}

export const visionSettings: SettingsArea = {
  name: 'vision',
  shape: visionEnvShape,
  rows: [
    {
      vars: ['ADDRESS_MODEL'],
      default: 'first available of the list above',
      meaning: 'Catalog id of the chat model of address-id.',
    },
    {
      vars: ['VISION_MODEL'],
      default: 'first available of the list above',
      meaning: 'Catalog id of the chat model of ocr-id and product-listing; must read images.',
    },
    {
      vars: ['VISION_IMAGE_MAX_BYTES'],
      default: '`10485760`',
      meaning: 'Largest image input (10 MB), URL, media link or inline.',
    },
    {
      vars: ['VISION_IMAGE_MAX_PIXELS'],
      default: '`40000000`',
      meaning: 'Largest decoded image (width × height); a larger one is a 400.',
    },
    {
      vars: ['VISION_IMAGE_SEND_SIDE'],
      default: '`2048`',
      meaning: 'Longest side of the image sent to the model (scaled down, aspect kept).',
    },
  ],
};
