// tools/domain-lookup on each database: registration (RDAP), DNS and mail policy of a domain, degraded
// sections, and the missing bootstrap file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FakeDns, startFakeDns } from '../../test/fakes/dns-server.js';
import { type FakeRdap, startFakeRdap } from '../../test/fakes/rdap.js';
import { DB_TARGETS } from '../../test/support/app.js';
import { startToolKit, type ToolKit } from '../../test/support/tool-kit.js';

const ZONE = {
  'example.com': {
    A: ['93.184.215.14'],
    AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    MX: [
      { preference: 20, exchange: 'mx2.example.com' },
      { preference: 10, exchange: 'MX1.example.com' },
    ],
    NS: ['b.iana-servers.net', 'a.iana-servers.net'],
    TXT: ['v=spf1 include:_spf.example.com -all', ['google-site-verification=', 'abc123']],
    CAA: [{ flags: 0, tag: 'issue', value: 'letsencrypt.org' }],
  },
  'www.example.com': { CNAME: ['example.com'] },
  '_dmarc.example.com': { TXT: ['v=DMARC1; p=reject; rua=mailto:dmarc@example.com'] },
  'example.net': { A: ['93.184.215.15'], NS: ['a.iana-servers.net'] },
};

describe.each(DB_TARGETS)('tools/domain-lookup on %s', (db) => {
  let rdap: FakeRdap;
  let dns: FakeDns;
  let kit: ToolKit;
  beforeAll(async () => {
    rdap = await startFakeRdap();
    dns = await startFakeDns(ZONE);
    kit = await startToolKit(db, { RDAP_BOOTSTRAP_URL: rdap.bootstrapUrl, DNS_SERVERS: dns.server });
  });
  afterAll(async () => {
    await kit.stop();
    await rdap.close();
    await dns.close();
  });

  it('answers registration, DNS and mail policy of a URL’s domain; the same call again is a paid cache hit', async () => {
    const { body, res } = await kit.paid('domain-lookup', { domain: 'https://Example.com/some/page?x=1' });
    expect(res.headers.get('x-cache')).toBe('miss');
    expect(rdap.requests.at(-1)?.headers.accept).toContain('application/rdap+json');
    const { tool: _t, costMicroUsd: _c, receipt: _r, registration, ...rest } = body;
    expect(rest).toEqual({
      domain: 'example.com',
      registered: true,
      dns: {
        A: ['93.184.215.14'],
        AAAA: ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
        MX: [
          { priority: 10, host: 'mx1.example.com' },
          { priority: 20, host: 'mx2.example.com' },
        ],
        NS: ['a.iana-servers.net', 'b.iana-servers.net'],
        TXT: ['v=spf1 include:_spf.example.com -all', 'google-site-verification=abc123'],
      },
      email: {
        spf: 'v=spf1 include:_spf.example.com -all',
        dmarc: 'v=DMARC1; p=reject; rua=mailto:dmarc@example.com',
        dmarc_policy: 'reject',
        mx_count: 2,
      },
      degraded: [],
    });
    expect(registration).toMatchObject({
      registrar: 'RESERVED-Internet Assigned Numbers Authority',
      created: '1995-08-14T04:00:00Z',
      expires: '2026-08-13T04:00:00Z',
      updated: '2025-08-14T07:01:39Z',
      nameservers: ['a.iana-servers.net', 'b.iana-servers.net'],
      dnssec: true,
    });
    expect((registration as { age_days: number }).age_days).toBeGreaterThan(11_000);
    expect((registration as { status: string[] }).status).toContain('client transfer prohibited');
    const seen = dns.queries.length;
    expect(
      (
        await kit.paid('domain-lookup', {
          domain: 'EXAMPLE.com.',
          records: ['TXT', 'A', 'NS', 'MX', 'AAAA', 'A'],
        })
      ).res.headers.get('x-cache'),
    ).toBe('hit');
    expect(dns.queries.length).toBe(seen);
  });

  it('looks up the records asked for on a subdomain, with the registrable domain’s registration', async () => {
    const { body } = await kit.paid('domain-lookup', {
      domain: 'www.example.com',
      records: ['CNAME', 'CAA'],
    });
    expect(body).toMatchObject({
      domain: 'www.example.com',
      registered: true,
      dns: { CNAME: ['example.com'], CAA: [] },
    });
    const { body: caa } = await kit.paid('domain-lookup', { domain: 'example.com', records: ['CAA'] });
    expect(caa.dns).toEqual({ CAA: [{ critical: 0, issue: 'letsencrypt.org' }] });
  });

  it('answers an unregistered domain as registered: false', async () => {
    const { body } = await kit.paid('domain-lookup', { domain: 'never-registered-kasir.org' });
    expect(body).toMatchObject({ registered: false, registration: null, degraded: [] });
    expect(body.dns).toEqual({ A: [], AAAA: [], MX: [], NS: [], TXT: [] });
  });

  it('names a failed section in degraded and still answers (charged): DNS down, or an RDAP server on a loopback name', async () => {
    dns.fail(true);
    try {
      const { body } = await kit.paid('domain-lookup', { domain: 'example.com', records: ['A'] });
      expect(body).toMatchObject({ registered: true, dns: null, email: null, degraded: ['dns', 'email'] });
    } finally {
      dns.fail(false);
    }
    const seen = rdap.requests.length;
    const { body } = await kit.paid('domain-lookup', { domain: 'example.net' });
    expect(body).toMatchObject({ registered: true, registration: null, degraded: ['registration'] });
    expect(rdap.requests.length).toBe(seen);
  });

  it('fails uncharged when every section fails, and refuses what is not a domain with 400', async () => {
    dns.fail(true);
    rdap.fail('down');
    try {
      await kit.refused('domain-lookup', { domain: 'example.org' }, 502);
    } finally {
      dns.fail(false);
      rdap.fail(null);
    }
    for (const domain of ['localhost', '127.0.0.1', 'http://[::1]/', 'not a domain', 'example.invalidtld']) {
      expect((await kit.refused('domain-lookup', { domain }, 400)).error.param, domain).toBe('domain');
    }
    expect(
      (await kit.refused('domain-lookup', { domain: 'example.com', records: ['SOA'] }, 400)).error.param,
    ).toMatch(/^records/);
  });
});

describe('tools/domain-lookup when the RDAP bootstrap file is gone', () => {
  let rdap: FakeRdap;
  let dns: FakeDns;
  let kit: ToolKit;
  beforeAll(async () => {
    rdap = await startFakeRdap();
    dns = await startFakeDns(ZONE);
    // The operator's RDAP_BOOTSTRAP_URL names a file the server does not have (404).
    kit = await startToolKit('sqlite', {
      RDAP_BOOTSTRAP_URL: `${rdap.url}/moved.json`,
      DNS_SERVERS: dns.server,
    });
  });
  afterAll(async () => {
    await kit.stop();
    await rdap.close();
    await dns.close();
  });

  it('answers 503 unavailable naming the bootstrap file, never a 400 blaming the input; nothing charged', async () => {
    dns.fail(true);
    try {
      const refused = await kit.refused('domain-lookup', { domain: 'example.com' }, 503);
      expect(refused.error.code).toBe('unavailable');
      expect(refused.error.message).toContain('RDAP bootstrap file');
      expect(refused.error.message).toContain("service's side");
    } finally {
      dns.fail(false);
    }
    // With DNS up the registration section is the one degraded, and the rest is answered.
    const { body } = await kit.paid('domain-lookup', { domain: 'example.com', records: ['A'] });
    expect(body).toMatchObject({ registration: null, degraded: ['registration'] });
  });
});
