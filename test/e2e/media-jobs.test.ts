// Async media jobs on each database: `Prefer: respond-async` answers 202 with a job id; GET /v1/jobs/{id} reads it
// from any instance; the hold is captured only when the job succeeds, released when it fails; a job outlives the
// instance that took it (stopped mid-job, another instance on the same database finishes and settles it). Results
// are stored on the disk and in an S3 bucket (a real S3-compatible server in CI).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { placeHold } from '../../src/ledger/books.js';
import { type FakeFal, startFakeFal } from '../fakes/fal-upstream.js';
import { bearer, type PaidKasir, startPaidKasir, UPSTREAM_KEYS } from '../support/paid.js';
import { DB_STORE_TARGETS, openMediaStore } from '../support/s3.js';
import { freshPostgres } from '../support/services.js';

const VIDEO = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves on a reef', duration: '5' };
const FUNDS = 50_000_000;
/** How long a job may take to end before the test counts it as stuck (under the file's 30-s test timeout). */
const JOB_END_MS = 20_000;

interface JobBody {
  job_id: string;
  status: string;
  status_url?: string;
  result?: {
    model: string;
    costMicroUsd: number;
    output: { url: string; sizeBytes: number };
    receipt: unknown;
  };
  error?: { code: string; message: string };
}

describe.each(DB_STORE_TARGETS)('async media jobs on %s with %s media', (db, _label, store) => {
  let fal: FakeFal;
  let databaseUrl: string;
  let cleanup: () => Promise<void>;
  let media: Awaited<ReturnType<typeof openMediaStore>>;
  let env: Record<string, string>;
  let first: PaidKasir;

  beforeAll(async () => {
    fal = await startFakeFal({ apiKey: UPSTREAM_KEYS.fal });
    media = await openMediaStore(store);
    if (db === 'postgres') {
      const pg = await freshPostgres();
      databaseUrl = pg.url;
      cleanup = pg.drop;
    } else {
      const dir = await mkdtemp(path.join(tmpdir(), 'kasir-jobs-'));
      databaseUrl = `sqlite:${path.join(dir, 'shared.db')}`;
      cleanup = () => rm(dir, { recursive: true, force: true });
    }
    env = { DATABASE_URL: databaseUrl, ...media.env };
    first = await startPaidKasir(db, env, { fal });
  });
  afterAll(async () => {
    await first?.stop();
    await fal.close();
    await cleanup();
    await media?.close();
  });

  const submit = (kasir: PaidKasir, key: string, body: Record<string, unknown>, prefer = 'respond-async') =>
    kasir.app.request('/v1/video/generations', {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'content-type': 'application/json', prefer, ...bearer(key) },
    });

  /**
   * The job's status once it has ended, read every 10 ms for up to JOB_END_MS. A deadline rather than a number of
   * reads: a busy CI machine stretches each read, and the restart test's second instance first has to find the job
   * (its sweep runs on a timer).
   */
  async function waitForEnd(kasir: PaidKasir, id: string): Promise<JobBody> {
    const deadline = Date.now() + JOB_END_MS;
    let body: JobBody | undefined;
    while (Date.now() < deadline) {
      const res = await kasir.app.request(`/v1/jobs/${id}`);
      expect(res.status).toBe(200);
      body = (await res.json()) as JobBody;
      if (body.status === 'succeeded' || body.status === 'failed') return body;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error(`job ${id} did not end within ${JOB_END_MS} ms: ${JSON.stringify(body)}`);
  }

  it('answers 202, holds the quote, and captures it when the job succeeds; the result is the synchronous body', async () => {
    fal.setScript({ polls: 4, fileBytes: 50_000 });
    const { key, accountId } = await first.fundedKey(FUNDS);
    const quote = first.quote(VIDEO);
    const res = await submit(first, key, VIDEO);
    expect(res.status).toBe(202);
    expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
    const accepted = (await res.json()) as JobBody;
    expect(accepted.job_id).toMatch(/^job_[0-9a-f]{32}$/);
    expect(accepted).toMatchObject({
      status: 'queued',
      status_url: `http://kasir.test/v1/jobs/${accepted.job_id}`,
    });
    const done = await waitForEnd(first, accepted.job_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.result).toMatchObject({
      model: VIDEO.model,
      costMicroUsd: quote,
      receipt: { rail: 'prepaid' },
    });
    expect(done.result?.output.sizeBytes).toBe(50_000);
    const media = await first.app.request(String(done.result?.output.url).slice('http://kasir.test'.length));
    const upstream = [...fal.files.entries()].find(([u]) => u.includes(fal.submits.at(-1)?.requestId ?? '?'));
    expect(Buffer.from(await media.arrayBuffer()).equals(upstream?.[1].bytes ?? Buffer.alloc(0))).toBe(true);
    expect(await first.balance(accountId)).toEqual({ balance: FUNDS - quote, held: 0 });
    expect(await first.ledger(accountId)).toEqual({ balance: FUNDS - quote, held: 0 });
  });

  it('releases the hold when the job fails, and when the submit fails charges nothing at once', async () => {
    const { key, accountId } = await first.fundedKey(FUNDS);
    fal.setScript({ jobError: 'runner_error' });
    const res = await submit(first, key, VIDEO);
    expect(res.status).toBe(202);
    const done = await waitForEnd(first, ((await res.json()) as JobBody).job_id);
    expect(done).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(done.result).toBeUndefined();
    fal.setScript({ submitStatus: 503 });
    const refused = await submit(first, key, VIDEO);
    expect(refused.status).toBe(502);
    expect(refused.headers.get('x-service-charged-micro-usd')).toBe('0');
    fal.setScript({});
    expect(await first.balance(accountId)).toEqual({ balance: FUNDS, held: 0 });
  });

  it('runs synchronously without the Prefer header, and refuses bad input before any job', async () => {
    const { key } = await first.fundedKey(FUNDS);
    const sync = await submit(first, key, VIDEO, '');
    expect(sync.status).toBe(200);
    const bad = await submit(first, key, { model: VIDEO.model });
    expect(bad.status).toBe(400);
    expect((await first.app.request('/v1/jobs/job_0123456789abcdef0123456789abcdef')).status).toBe(404);
  });

  it('gives up a submit the upstream does not take in time: 504, nothing charged, nothing held, the row ended', async () => {
    const slow = await startPaidKasir(db, { ...env, MEDIA_FIRST_BYTE_TIMEOUT_MS: '300' }, { fal });
    try {
      const { key, accountId } = await slow.fundedKey(FUNDS);
      fal.setScript({ submitStallMs: 2_000 });
      const res = await submit(slow, key, VIDEO);
      expect(res.status).toBe(504);
      expect(((await res.json()) as JobBody).error?.code).toBe('upstream_timeout');
      expect(res.headers.get('x-service-charged-micro-usd')).toBe('0');
      expect(await slow.balance(accountId)).toEqual({ balance: FUNDS, held: 0 });
      const rows = await slow.deps.db.kysely
        .selectFrom('jobs')
        .select(['status'])
        .where('account_id', '=', accountId)
        .execute();
      expect(rows).toEqual([{ status: 'failed' }]);
    } finally {
      fal.setScript({});
      await slow.stop();
    }
  });

  it('gives back the money of a job whose instance died mid-submit: its row was written first, a scan releases its hold', async () => {
    const { accountId } = await first.fundedKey(FUNDS);
    const quote = first.quote(VIDEO);
    // What a `kill -9` between the hold and fal's answer leaves: the hold, and the job's row still `submitting`
    // with its submitter's lock lapsed (no upstream handle, the caller never got the id).
    const { holdId } = await placeHold(first.deps.db, {
      accountId,
      keyId: null,
      keySpendCapped: false,
      amountMicroUsd: quote,
      offerId: VIDEO.model,
      requestId: 'req_cut_mid_submit',
      ttlSeconds: 3600,
    });
    const id = `job_${'c'.repeat(32)}`;
    const past = new Date(Date.now() - 1000).toISOString();
    await first.deps.db.kysely
      .insertInto('jobs')
      .values({
        id,
        offer_id: VIDEO.model,
        rail: 'prepaid',
        account_id: accountId,
        key_id: null,
        hold_id: holdId,
        amount_micro_usd: quote,
        request_id: 'req_cut_mid_submit',
        handle: 'null',
        status: 'submitting',
        result: null,
        error: null,
        created_at: past,
        deadline_at: new Date(Date.now() + 3_600_000).toISOString(),
        locked_until: past,
        finished_at: null,
      })
      .execute();
    expect((await first.balance(accountId)).held).toBe(quote);
    let body: JobBody | undefined;
    for (let i = 0; i < 150 && body?.status !== 'failed'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      body = (await (await first.app.request(`/v1/jobs/${id}`)).json()) as JobBody;
    }
    expect(body).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } });
    expect(await first.balance(accountId)).toEqual({ balance: FUNDS, held: 0 });
    expect(await first.ledger(accountId)).toEqual({ balance: FUNDS, held: 0 });
    const usage = await first.deps.db.kysely
      .selectFrom('usage_records')
      .select(['charged_micro_usd'])
      .where('request_id', '=', 'req_cut_mid_submit')
      .execute();
    expect(usage).toEqual([{ charged_micro_usd: 0 }]);
  }, 30_000);

  it('survives a restart: another instance on the same database finishes the job, settles it once and answers its status', async () => {
    fal.setScript({ polls: 40 });
    const { key, accountId } = await first.fundedKey(FUNDS);
    const quote = first.quote(VIDEO);
    const res = await submit(first, key, VIDEO);
    const { job_id } = (await res.json()) as JobBody;
    expect((await first.balance(accountId)).held).toBe(quote);
    // The first instance goes away mid-job (its poller stops, the job stays open in the table).
    await first.stop();
    const second = await startPaidKasir(db, env, { fal });
    first = second;
    const done = await waitForEnd(second, job_id);
    expect(done.status, JSON.stringify(done)).toBe('succeeded');
    expect(done.result?.costMicroUsd).toBe(quote);
    expect(await second.balance(accountId)).toEqual({ balance: FUNDS - quote, held: 0 });
    expect(await second.ledger(accountId)).toEqual({ balance: FUNDS - quote, held: 0 });
  });
});
