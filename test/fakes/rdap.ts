/**
 * A fake RDAP service: IANA's bootstrap file at /dns.json (RFC 9224: {version, publication, services: [[tlds],
 * [urls]]}) naming this server for .com and .org, and `localhost` for .net (a name that resolves to a loopback
 * address, which kasir must refuse to reach); GET /rdap/domain/{name} answers a recorded Verisign object for
 * example.com and RFC 9083's 404 error object for anything else.
 */
import example from './fixtures/rdap-example-com.json' with { type: 'json' };
import { type FakeJsonUpstream, startFakeJsonUpstream } from './json-upstream.js';

export interface FakeRdap extends FakeJsonUpstream {
  /** The bootstrap file's URL (RDAP_BOOTSTRAP_URL). */
  bootstrapUrl: string;
}

export async function startFakeRdap(): Promise<FakeRdap> {
  let origin = '';
  const errorBody = (status: number, title: string) => ({
    errorCode: status,
    title,
    rdapConformance: ['rdap_level_0'],
  });
  const fake = await startFakeJsonUpstream({
    errorBody,
    routes: [
      {
        method: 'GET',
        path: /^\/dns\.json$/,
        answer: () => ({
          body: {
            version: '1.0',
            publication: '2026-11-20T18:00:02Z',
            description: 'RDAP bootstrap file for Domain Name System registrations',
            services: [
              [['com', 'org'], [`${origin}/rdap/`]],
              [['net'], [`http://localhost:${new URL(origin).port}/rdap/`]],
            ],
          },
        }),
      },
      {
        method: 'GET',
        path: /^\/rdap\/domain\/([^/]+)$/,
        answer: (_req, m) =>
          decodeURIComponent(m[1] ?? '').toLowerCase() === 'example.com'
            ? { body: example, headers: { 'content-type': 'application/rdap+json' } }
            : { status: 404, body: errorBody(404, 'Not Found') },
      },
    ],
  });
  origin = fake.url;
  return Object.assign(fake, { bootstrapUrl: `${fake.url}/dns.json` });
}
