// The dashboard's URL is advertised where callers look: /skill.md, /openapi.json and the 402 body's prepaid rail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chatBody, type PaidKasir, startPaidKasir } from '../support/paid.js';

describe('the dashboard is advertised', () => {
  let kasir: PaidKasir;
  beforeAll(async () => {
    kasir = await startPaidKasir('sqlite');
  });
  afterAll(() => kasir.stop());

  it('in /skill.md and /openapi.json', async () => {
    const skill = await (await kasir.app.request('/skill.md')).text();
    expect(skill).toContain('http://kasir.test/dashboard');
    const doc = (await (await kasir.app.request('/openapi.json')).json()) as {
      info: { description: string };
      externalDocs: { url: string };
    };
    expect(doc.externalDocs.url).toBe('http://kasir.test/dashboard');
    expect(doc.info.description).toContain('http://kasir.test/dashboard');
  });

  it("in the 402 body's prepaid rail", async () => {
    const res = await kasir.app.request('/v1/chat/completions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(chatBody('openai/gpt-4.1-mini')),
    });
    expect(res.status).toBe(402);
    const body = JSON.stringify(await res.json());
    expect(body).toContain('"rail":"prepaid"');
    expect(body).toContain('"dashboard":"/dashboard"');
  });
});
