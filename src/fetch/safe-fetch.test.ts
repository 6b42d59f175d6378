// The safe fetcher: the private-address rule and its FETCH_ALLOWED_HOSTS exemption, then redirects, size and
// time caps, content types and headers of the SafeFetcher.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buffer } from 'node:stream/consumers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAllowedHosts } from '../config/fetch.js';
import { checkDestination, type Resolver, refusedAddress } from './address-rule.js';
import { FetchFailure } from './errors.js';
import { type FetchPolicy, SafeFetcher } from './safe-fetch.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

async function serve(handler: Handler): Promise<{ server: Server; port: number; url: string }> {
  const server = createServer(handler);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return { server, port, url: `http://127.0.0.1:${port}` };
}

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

async function failureOf(p: Promise<unknown>): Promise<FetchFailure> {
  try {
    await p;
  } catch (err) {
    if (err instanceof FetchFailure) return err;
    throw err;
  }
  throw new Error('the fetch succeeded');
}

describe('address rule', () => {
  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.16.0.9',
    '192.168.1.1',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '::1',
    '::',
    'fe80::1',
    'fd00::1',
    '::ffff:127.0.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::a00:1',
    '224.0.0.1',
  ])('refuses %s', (address) => {
    expect(refusedAddress(address)).toMatch(/is a \w+ address/);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111'])('allows public %s', (address) => {
    expect(refusedAddress(address)).toBeNull();
  });

  it('checks a name by every address it resolves to, and says why', async () => {
    const resolve: Resolver = async (host) =>
      host === 'mixed.example'
        ? [
            { address: '93.184.216.34', family: 4 },
            { address: '10.0.0.7', family: 4 },
          ]
        : [{ address: '93.184.216.34', family: 4 }];
    const policy = { allowedHosts: new Set<string>(), resolve };
    expect(await checkDestination('mixed.example', 443, policy)).toEqual({
      allowed: false,
      reason: 'mixed.example resolves to a private address (10.0.0.7)',
    });
    expect(await checkDestination('public.example', 443, policy)).toEqual({
      allowed: true,
      address: { address: '93.184.216.34', family: 4 },
      exempt: false,
    });
    expect(await checkDestination('[::1]', 80, policy)).toMatchObject({ allowed: false });
  });

  it('exempts exactly the host:port pairs of the allowlist', async () => {
    const problems: string[] = [];
    const allowedHosts = parseAllowedHosts('127.0.0.1:8080, [::1]:9000,Files.Intranet:443', problems);
    expect(problems).toEqual([]);
    expect([...allowedHosts]).toEqual(['127.0.0.1:8080', '[::1]:9000', 'files.intranet:443']);
    const policy = { allowedHosts };
    expect(await checkDestination('127.0.0.1', 8080, policy)).toMatchObject({ allowed: true, exempt: true });
    expect(await checkDestination('127.0.0.1', 8081, policy)).toMatchObject({ allowed: false });
    expect(await checkDestination('[::1]', 9000, policy)).toMatchObject({ allowed: true, exempt: true });
    parseAllowedHosts('127.0.0.1,http://x:1/,h:99999', problems);
    expect(problems).toHaveLength(3);
  });
});

describe('SafeFetcher', () => {
  let origin: Awaited<ReturnType<typeof serve>>;
  let other: Awaited<ReturnType<typeof serve>>;
  const policy = (extra: Partial<FetchPolicy> = {}): FetchPolicy => ({
    allowedHosts: new Set([`127.0.0.1:${origin.port}`]),
    maxRedirects: 3,
    timeoutMs: 2000,
    ...extra,
  });
  const image = { maxBytes: 1024, accept: ['image/*'] };

  /** The `x-key` header of the last request each server saw. */
  const keys: { origin?: string | undefined; other?: string | undefined } = {};

  beforeAll(async () => {
    other = await serve((req, res) => {
      keys.other = req.headers['x-key'] as string | undefined;
      res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
    });
    origin = await serve((req, res) => {
      keys.origin = req.headers['x-key'] as string | undefined;
      const path = req.url ?? '/';
      if (path === '/image.png') res.writeHead(200, { 'content-type': 'image/png; charset=binary' }).end(PNG);
      else if (path === '/page') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
      else if (path === '/to-other') res.writeHead(302, { location: `${other.url}/x.png` }).end();
      else if (path === '/to-metadata')
        res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
      else if (path === '/to-image') res.writeHead(301, { location: '/image.png' }).end();
      else if (path === '/loop') res.writeHead(302, { location: '/loop' }).end();
      else if (path === '/big-declared')
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': '4096' }).end(Buffer.alloc(4096));
      else if (path === '/big-chunked') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(Buffer.alloc(800));
        setTimeout(() => res.end(Buffer.alloc(800)), 10);
      } else if (path === '/slow') {
        res.writeHead(200, { 'content-type': 'image/png' });
        res.write(PNG);
      } else res.writeHead(404).end();
    });
  });
  afterAll(async () => {
    origin.server.closeAllConnections();
    await new Promise((r) => origin.server.close(r));
    await new Promise((r) => other.server.close(r));
  });

  it('fetches from an allowlisted host and streams the bytes', async () => {
    const got = await new SafeFetcher(policy()).open(`${origin.url}/image.png`, image);
    expect(got.contentType).toBe('image/png');
    expect(await buffer(got.body)).toEqual(PNG);
  });

  it.each([
    ['loopback', () => `${other.url}/x.png`],
    ['localhost by name', () => `http://localhost:${other.port}/x.png`],
    ['the metadata service', () => 'http://169.254.169.254/latest/meta-data/'],
    ['the unspecified address', () => `http://0.0.0.0:${other.port}/`],
    ['IPv6 loopback', () => `http://[::1]:${other.port}/`],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${other.port}/`],
    ['IPv4-mapped IPv6 in hex', () => `http://[::ffff:7f00:1]:${other.port}/`],
    ['a private network', () => 'http://10.0.0.1/'],
    ['a file URL', () => 'file:///etc/passwd'],
    ['an ftp URL', () => 'ftp://example.com/x'],
    ['a URL with credentials', () => `http://user:pw@127.0.0.1:${origin.port}/image.png`],
  ])('refuses %s before connecting', async (_name, url) => {
    const failure = await failureOf(new SafeFetcher(policy()).open(url(), image));
    expect(failure.kind).toBe('refused');
  });

  it('refuses a name that resolves to a private address, and connects to the checked address only', async () => {
    const resolve: Resolver = async (host) => [
      { address: host === 'cdn.example' ? '127.0.0.1' : '192.168.0.10', family: 4 },
    ];
    const fetcher = new SafeFetcher(
      policy({ resolve, allowedHosts: new Set([`cdn.example:${origin.port}`]) }),
    );
    const refused = await failureOf(fetcher.open(`http://evil.example:${origin.port}/image.png`, image));
    expect(refused.message).toBe('evil.example resolves to a private address (192.168.0.10)');
    // cdn.example exists only in the injected resolver: the connection went to the address it gave.
    const got = await fetcher.open(`http://cdn.example:${origin.port}/image.png`, image);
    expect(await buffer(got.body)).toEqual(PNG);
  });

  it('checks every redirect target, and bounds the number of redirects', async () => {
    const fetcher = new SafeFetcher(policy());
    expect((await failureOf(fetcher.open(`${origin.url}/to-other`, image))).kind).toBe('refused');
    const metadata = await failureOf(fetcher.open(`${origin.url}/to-metadata`, image));
    expect(metadata.message).toMatch(/169\.254\.169\.254 is a linkLocal address/);
    const followed = await fetcher.open(`${origin.url}/to-image`, image);
    expect(followed.url).toBe(`${origin.url}/image.png`);
    expect(await buffer(followed.body)).toEqual(PNG);
    const loop = await failureOf(fetcher.open(`${origin.url}/loop`, image));
    expect(loop).toMatchObject({ kind: 'status', message: 'more than 3 redirects' });
  });

  it('caps the size, whether declared or counted while streaming', async () => {
    const fetcher = new SafeFetcher(policy());
    expect((await failureOf(fetcher.open(`${origin.url}/big-declared`, image))).kind).toBe('too_large');
    const opened = await fetcher.open(`${origin.url}/big-chunked`, image);
    const failure = await failureOf(buffer(opened.body));
    expect(failure).toMatchObject({ kind: 'too_large', message: 'the file is larger than 1024 bytes' });
  });

  it('gives up after the time limit', async () => {
    const fetcher = new SafeFetcher(policy({ timeoutMs: 200 }));
    const opened = await fetcher.open(`${origin.url}/slow`, image);
    const started = Date.now();
    expect((await failureOf(buffer(opened.body))).kind).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
  });

  it('checks the content type and the status', async () => {
    const fetcher = new SafeFetcher(policy());
    const page = await failureOf(fetcher.open(`${origin.url}/page`, image));
    expect(page).toMatchObject({ kind: 'bad_type', message: 'content type text/html is not one of image/*' });
    expect((await failureOf(fetcher.open(`${origin.url}/missing`, image))).kind).toBe('status');
  });

  it('sends the caller’s headers to the first origin only, never to a redirect elsewhere', async () => {
    const fetcher = new SafeFetcher(
      policy({ allowedHosts: new Set([`127.0.0.1:${origin.port}`, `127.0.0.1:${other.port}`]) }),
    );
    const headers = { 'x-key': 'provider-secret' };
    await buffer((await fetcher.open(`${origin.url}/to-image`, { ...image, headers })).body);
    expect(keys.origin).toBe('provider-secret');
    await buffer((await fetcher.open(`${origin.url}/to-other`, { ...image, headers })).body);
    expect(keys.origin).toBe('provider-secret');
    expect(keys.other).toBeUndefined();
  });

  it("trusts a provider's configured host, and only the provider's hosts, for its result files", async () => {
    const fetcher = new SafeFetcher(policy({ allowedHosts: new Set() }));
    const trusted = { origin: `127.0.0.1:${other.port}`, cdnHosts: ['.fal.media'] };
    const got = await fetcher.open(`${other.url}/result.png`, { ...image, trusted });
    expect(await buffer(got.body)).toEqual(PNG);
    // A user URL never gets that trust, and a result off the provider's hosts is refused.
    expect((await failureOf(fetcher.open(`${other.url}/result.png`, image))).kind).toBe('refused');
    const elsewhere = await failureOf(fetcher.open(`${origin.url}/image.png`, { ...image, trusted }));
    expect(elsewhere.message).toBe(`127.0.0.1:${origin.port} is not one of the provider's hosts`);
  });
});
