// The consult search: the intents it covers in English and Indonesian, and each candidate's route, reason,
// price and example (free lookups as GET queries).
import { describe, expect, it } from 'vitest';
import { loadCatalog } from './load.js';

const catalog = loadCatalog({ marginPercent: { '*': 0 } });

/** Intent → what must appear in the top 3: a category, or a tool / lookup id. */
const INTENTS: Array<[string, string]> = [
  // English
  ['generate an image of a cat astronaut', 'text-to-image'],
  ['draw a logo for my coffee shop', 'text-to-image'],
  ['make a short video from text', 'text-to-video'],
  ['video from an image', 'image-to-video'],
  ['animate my product photo', 'image-to-video'],
  ['restyle my video as anime', 'video-to-video'],
  ['turn this text into speech', 'text-to-speech'],
  ['read this article aloud with a natural voice', 'text-to-speech'],
  ['transcribe a meeting', 'speech-to-text'],
  ['subtitles for my podcast recording', 'speech-to-text'],
  ['compose background music for a video', 'music'],
  ['write a song with lyrics', 'music'],
  ['chat with an assistant to summarize a document', 'chat'],
  ['translate a paragraph to French', 'chat'],
  ['render a code screenshot', 'tools/code-image'],
  ['take a screenshot of a website', 'tools/screenshot'],
  ['prayer times in Bandung', 'tools/prayer-times'],
  ['token price of ETH', 'tools/token-price'],
  ['search the web for news', 'tools/search'],
  ['gas fee on base', 'tools/gas-price'],
  ['convert 100 USD to IDR', 'tools/exchange-rate'],
  ['whois and dns records of a domain', 'tools/domain-lookup'],
  ['compare two faces', 'tools/face-compare'],
  ['embeddings for semantic search', 'tools/embed'],
  ['is this text toxic', 'tools/moderate'],
  ['funding rate of perpetual futures', 'tools/perp-markets'],
  ['make a meme', 'tools/meme'],
  ['youtube thumbnail', 'tools/youtube-thumbnail'],
  ['SEC 10-K filings of Apple', 'tools/stock-filings'],
  ['spell out a number in Indonesian words', 'tools/terbilang'],
  // Indonesian
  ['buat gambar kucing lucu', 'text-to-image'],
  ['buat video dari foto', 'image-to-video'],
  ['ubah teks jadi suara', 'text-to-speech'],
  ['transkripsi rekaman rapat', 'speech-to-text'],
  ['bikin lagu untuk iklan', 'music'],
  ['jadwal sholat di Surabaya', 'tools/prayer-times'],
  ['harga token bitcoin', 'tools/token-price'],
  ['cek nik ktp', 'tools/verify-nik'],
  ['cek npwp', 'tools/verify-npwp'],
  ['baca ktp dari foto', 'tools/ocr-id'],
  ['kode wilayah kabupaten bandung', 'tools/wilayah'],
  ['decode qris pembayaran', 'tools/qris'],
  ['kurs rupiah hari ini', 'tools/exchange-rate'],
  ['deskripsi produk dari foto untuk tokopedia', 'tools/product-listing'],
  ['terjemahkan dan ringkas dokumen', 'chat'],
  ['pecah alamat lengkap', 'tools/address-id'],
];

describe('consult', () => {
  it.each(INTENTS)('"%s" → %s in the top 3', (intent, expected) => {
    const top = catalog.consult(intent, 3);
    const hits = top.map((c) => (c.kind === 'model' ? c.category : (c.tool ?? '')));
    expect(hits, JSON.stringify(top.map((c) => [c.model ?? c.tool, c.why]))).toContain(expected);
  });

  it('covers at least 30 intents in English and Indonesian', () => {
    expect(INTENTS.length).toBeGreaterThanOrEqual(30);
  });

  it('gives each candidate a route, a reason, a price and an example that validates', () => {
    for (const c of catalog.consult('make a video of a sunset', 10)) {
      expect(c.method).toBe('POST');
      expect(c.path).toMatch(/^\/v1\//);
      expect(c.why).toMatch(/^matched /);
      expect(c.price.maxMicroUsd).toBeGreaterThanOrEqual(c.price.minMicroUsd);
      const entry = catalog.find(String(c.model ?? c.recipe));
      expect(entry).toBeDefined();
      if (entry) expect(catalog.validate(entry, structuredClone(c.example)).ok).toBe(true);
    }
  });

  it('answers free lookups with GET, a query example and no price', () => {
    const [first] = catalog.consult('prayer times in Bandung', 1);
    expect(first).toMatchObject({
      method: 'GET',
      path: '/v1/tools/prayer-times',
      kind: 'lookup',
      free: true,
      example: { city: 'Bandung' },
    });
    expect(first?.price.maxMicroUsd).toBe(0);
  });

  it('respects the limit and returns nothing for gibberish', () => {
    expect(catalog.consult('image', 20)).toHaveLength(20);
    expect(catalog.consult('image', 1)).toHaveLength(1);
    expect(catalog.consult('zzqxv', 5)).toEqual([]);
  });
});
