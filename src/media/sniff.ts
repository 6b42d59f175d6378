/**
 * What a media object really is, read from its first bytes: binary formats by file-type's signatures, and the text
 * formats a browser would run (SVG, HTML, XHTML, XML), which file-type deliberately does not detect, by the rules
 * below. Also: which declared types a detected one may stand for, and which types are safe to show inline.
 */
import { fileTypeFromBuffer, supportedMimeTypes } from 'file-type';

/** How many leading bytes the type is read from (file-type reads at most 4,100; an SVG prolog fits in 8 KB). */
export const SNIFF_BYTES = 8192;

/** Alternative spellings of one media type, by the name kasir compares them under. */
const SPELLINGS: Record<string, string> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/apng': 'image/png',
  'image/x-ms-bmp': 'image/bmp',
  'image/heif': 'image/heic',
  'audio/mp3': 'audio/mpeg',
  'audio/x-wav': 'audio/wav',
  'audio/wave': 'audio/wav',
  'audio/vnd.wave': 'audio/wav',
  'audio/x-flac': 'audio/flac',
  'audio/aacp': 'audio/aac',
  'audio/x-aac': 'audio/aac',
};

/** Containers whose one signature carries audio or video (an .m4a is an MP4 file; a .weba a WebM one). */
const FAMILIES: Record<string, string> = {
  'video/mp4': 'iso-bmff',
  'audio/mp4': 'iso-bmff',
  'audio/x-m4a': 'iso-bmff',
  'audio/m4a': 'iso-bmff',
  'video/x-m4v': 'iso-bmff',
  'video/quicktime': 'iso-bmff',
  'video/3gpp': 'iso-bmff',
  'video/3gpp2': 'iso-bmff',
  'audio/3gpp': 'iso-bmff',
  'video/webm': 'matroska',
  'audio/webm': 'matroska',
  'video/matroska': 'matroska',
  'video/x-matroska': 'matroska',
  'audio/matroska': 'matroska',
  'audio/x-matroska': 'matroska',
  'audio/ogg': 'ogg',
  'audio/opus': 'ogg',
  'video/ogg': 'ogg',
  'application/ogg': 'ogg',
};

/**
 * Types a browser shows without running anything: served inline. Every other type (SVG, HTML, XML, scripts, and
 * anything unknown) is served as an attachment.
 */
const INLINE_SAFE = new Set([
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/avif',
  'image/bmp',
  'image/tiff',
  'image/heic',
  'video/mp4',
  'video/webm',
  'video/quicktime',
  'video/x-matroska',
  'video/matroska',
  'video/mpeg',
  'video/ogg',
  'audio/mpeg',
  'audio/wav',
  'audio/ogg',
  'audio/opus',
  'audio/flac',
  'audio/aac',
  'audio/mp4',
  'audio/x-m4a',
  'audio/webm',
  'audio/pcm',
]);

/** The bare, lower-case type under its usual spelling (`audio/ogg; codecs=opus` → `audio/ogg`). */
function canonical(type: string): string {
  const bare = type.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return SPELLINGS[bare] ?? bare;
}

/** Types whose bytes can be recognised: file-type's, their containers' other names, and the markup read here. */
const RECOGNISABLE = new Set([
  ...[...supportedMimeTypes].map(canonical),
  ...Object.keys(FAMILIES),
  'image/svg+xml',
  'text/html',
  'application/xhtml+xml',
  'application/xml',
  'text/xml',
]);

/** True when a detected type is what the declared one says (same format, or one container for audio or video). */
export function sameMediaType(declared: string, detected: string): boolean {
  const a = canonical(declared);
  const b = canonical(detected);
  if (a === b) return true;
  const family = FAMILIES[a];
  return family !== undefined && family === FAMILIES[b];
}

/**
 * True for a type kasir cannot recognise from bytes (raw PCM, an uncommon format): bytes of no recognised type may
 * be it. Such a file is served as an attachment.
 */
export function isSignatureless(type: string): boolean {
  return !RECOGNISABLE.has(canonical(type));
}

/** True when a browser may show the type inline: a raster image, audio or video (never SVG, HTML, XML, script). */
export function isInlineSafe(type: string): boolean {
  return INLINE_SAFE.has(canonical(type));
}

/** The start tags that make a browser's sniffer call a text `text/html` (WHATWG MIME Sniffing, §7.1). */
const HTML_TAGS = [
  '!doctype html',
  'html',
  'head',
  'script',
  'iframe',
  'h1',
  'div',
  'font',
  'table',
  'a',
  'style',
  'title',
  'b',
  'body',
  'br',
  'p',
  '!--',
];

/**
 * Markup, by its first element: hand-written because file-type leaves text formats out on purpose and no
 * maintained package reads SVG, HTML and XML apart from a byte prefix. Comments, the XML declaration, processing
 * instructions and the doctype are skipped to find the root element.
 */
function sniffMarkup(head: Buffer): string | undefined {
  let text = head.toString('latin1');
  if (text.startsWith('\xef\xbb\xbf')) text = text.slice(3);
  text = text.replace(/^[\t\n\f\r ]+/, '');
  if (!text.startsWith('<')) return undefined;
  const lower = text.toLowerCase();
  const isXml = lower.startsWith('<?xml');
  // The root element: the first `<name` that is not a comment, a declaration or a processing instruction.
  const prolog = lower.replace(/<!--[\s\S]*?(-->|$)|<\?[\s\S]*?(\?>|$)|<![^>]*(>|$)/g, ' ');
  const root = /<([a-z_][a-z0-9_.:-]*)/.exec(prolog)?.[1];
  const local = root?.split(':').pop();
  if (local === 'svg') return 'image/svg+xml';
  if (local === 'html') return isXml ? 'application/xhtml+xml' : 'text/html';
  if (/^<!doctype\s+svg/.test(lower)) return 'image/svg+xml';
  for (const tag of HTML_TAGS) {
    if (!lower.startsWith(`<${tag}`)) continue;
    const next = lower.charAt(tag.length + 1);
    if (next === ' ' || next === '>' || (tag === '!--' && next !== '')) return 'text/html';
  }
  if (isXml || lower.startsWith('<!doctype')) return 'application/xml';
  // Other markup-looking text is still HTML to a browser that renders it as a document; binary bytes that happen to
  // start with `<` and a letter (one file in a few thousand) are not.
  return root && looksLikeText(head) ? 'text/html' : undefined;
}

/** Plain text (no control bytes but whitespace), which is no media format. */
function looksLikeText(head: Buffer): boolean {
  if (head.length === 0) return false;
  for (const byte of head) if (byte < 0x09 || (byte > 0x0d && byte < 0x20) || byte === 0x7f) return false;
  return true;
}

/** The type of the bytes that start with `head`, or undefined when nothing is recognised. */
export async function detectMediaType(head: Buffer): Promise<string | undefined> {
  const binary = await fileTypeFromBuffer(head);
  // file-type reports XML by its declaration; the markup rules say which XML (SVG, XHTML or other).
  if (binary && binary.mime !== 'application/xml') return canonical(binary.mime);
  return sniffMarkup(head) ?? binary?.mime ?? (looksLikeText(head) ? 'text/plain' : undefined);
}
