/**
 * The cards as worker tasks: one job (plain data: the card's text, theme, a fetched image as a data: URI) in, one
 * PNG out. The code image's highlighting runs here too. Everything a card needs that costs CPU (shiki, satori's
 * layout, resvg's encoding) happens in the thread that runs this; what needs the network stays with the caller.
 */
import type { BundledLanguage } from 'shiki';
import { renderCodeCard } from './code-card.js';
import { highlight } from './highlight.js';
import { renderMeme } from './meme-card.js';
import type { RenderedPng } from './png.js';
import { renderQuoteCard } from './quote-card.js';
import type { RemoteImage } from './remote-image.js';
import type { Theme } from './themes.js';
import { renderTitleCard, type TitleCard } from './title-card.js';
import { renderTweetCard } from './tweet-card.js';

export type CardJob =
  | { kind: 'title'; card: TitleCard }
  | { kind: 'quote'; quote: string; author: string; theme: Theme }
  | { kind: 'tweet'; post: { text: string; name: string; handle: string }; theme: Theme }
  | { kind: 'meme'; image: RemoteImage; top: string; bottom: string }
  | { kind: 'code'; title: string; code: string; language: BundledLanguage | 'text' };

export async function drawCard(job: CardJob): Promise<RenderedPng> {
  switch (job.kind) {
    case 'title':
      return renderTitleCard(job.card);
    case 'quote':
      return renderQuoteCard(job.quote, job.author, job.theme);
    case 'tweet':
      return renderTweetCard(job.post, job.theme);
    case 'meme':
      return renderMeme(job.image, job.top, job.bottom);
    case 'code':
      return renderCodeCard(job.title, await highlight(job.code, job.language));
  }
}
