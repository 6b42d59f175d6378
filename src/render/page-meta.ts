/**
 * What a web page says about itself for a preview: title, description, site name and image, read from its Open
 * Graph and Twitter card tags (falling back to <title> and the description meta tag) with cheerio, whose
 * loadBuffer also sniffs the page's character encoding.
 */

export interface PageMeta {
  title: string | null;
  description: string | null;
  siteName: string | null;
  /** The og:image (or twitter:image), resolved against the page's URL; only http(s). */
  image: string | null;
}

function clean(value: string | undefined): string | null {
  const text = value?.replace(/\s+/g, ' ').trim();
  return text ? text : null;
}

/** The page's card tags; cheerio loads on the first page read, not at start (few instances draw cards). */
export async function readPageMeta(html: Buffer, pageUrl: string): Promise<PageMeta> {
  const { loadBuffer } = await import('cheerio');
  const $ = loadBuffer(html);
  const meta = (...names: string[]) => {
    for (const name of names) {
      const found = clean(
        $(`meta[property="${name}"]`).attr('content') ?? $(`meta[name="${name}"]`).attr('content'),
      );
      if (found) return found;
    }
    return null;
  };
  let image: string | null = null;
  const rawImage = meta('og:image:secure_url', 'og:image', 'og:image:url', 'twitter:image');
  if (rawImage) {
    try {
      const resolved = new URL(rawImage, pageUrl);
      if (resolved.protocol === 'https:' || resolved.protocol === 'http:') image = resolved.href;
    } catch {
      image = null;
    }
  }
  return {
    title: meta('og:title', 'twitter:title') ?? clean($('title').first().text()),
    description: meta('og:description', 'twitter:description', 'description'),
    siteName: meta('og:site_name', 'application-name'),
    image,
  };
}
