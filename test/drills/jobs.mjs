// The async media jobs drill: video jobs (`Prefer: respond-async`, a prepaid key, fal's queue faked by the drill)
// submitted to two kasir instances on one PostgreSQL database and one S3 bucket, `kill -9` of one of them while jobs
// are in flight, its replacement on a new, empty data folder; then every job's status URL is polled (through either
// instance) until it ends. The dead instance's jobs are adopted by a live one once their lock lapses. Every round,
// every job accepted (202) must end `succeeded` with its result delivered (the media URL answers the bytes fal made)
// and charged exactly once at its quote, or `failed` and charged nothing; the account's balance must have fallen by
// the sum of the charges, nothing may stay held, and fal must have been sent each job once (an adoption polls, it
// never submits again). The kill falls between two submits. A kill in the middle of one (its hold placed and its row
// written as `submitting`, fal sent the job, no answer yet) leaves a row a scan ends once the submit's lock lapses
// (its time limit, MEDIA_FIRST_BYTE_TIMEOUT_MS, plus 30 s and a poll lock): its hold released, nothing charged,
// fal's job unpaid; test/e2e/media-jobs.test.ts shows that, and the drill leaves the window out to keep its rounds
// short.
//
//   npm run build && node test/drills/jobs.mjs              # 3 rounds, 12 jobs each
//   node test/drills/jobs.mjs --rounds 1 --jobs 8
//   (env TEST_POSTGRES_URL, TEST_S3_URL / TEST_S3_ACCESS_KEY / TEST_S3_SECRET_KEY: the servers to use)
//
// Exits non-zero when any round does not balance. crash-drill.mjs runs it as the `jobs` rail.
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  ListObjectsV2Command,
  S3Client,
} from '@aws-sdk/client-s3';
import { request } from 'undici';
import {
  arg,
  between,
  dist,
  isMain,
  openDrillDb,
  printRounds,
  sleep,
  startCluster,
  withDrill,
} from './harness.mjs';

const FUNDS = 1_000_000_000;
const VIDEO = { model: 'kwaivgi/kling-v2.5-turbo-pro', prompt: 'waves on a reef', duration: '5' };
const FAL_KEY = 'fal-drill-key:secret';
/** How long each faked fal job runs (queued for the first third). */
const JOB_MS = 3000;
const FILE_BYTES = 40_000;

const S3_URL = process.env.TEST_S3_URL ?? 'http://127.0.0.1:7480';
const S3_ACCESS_KEY = process.env.TEST_S3_ACCESS_KEY ?? 'KASIRCITESTACCESSKEY';
const S3_SECRET_KEY = process.env.TEST_S3_SECRET_KEY ?? 'kasir-ci-test-secret-key-not-a-secret';

/** The bytes of a faked job's video: derived from its id, so the drill can tell them apart. */
function bytesOf(id) {
  const out = Buffer.alloc(FILE_BYTES);
  let block = createHash('sha256').update(id).digest();
  for (let at = 0; at < FILE_BYTES; at += block.length) {
    block.copy(out, at);
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

const sendJson = (res, status, body) => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

/**
 * A fake fal queue in the drill's process: a submit answers fal's receipt; the status walks IN_QUEUE → IN_PROGRESS
 * → COMPLETED with time (JOB_MS); the result names a video file the fake serves. Counts submits and result reads.
 */
async function fakeFal() {
  const jobs = new Map(); // id → { submitted, endpoint, resultReads }
  let seq = 0;
  let base = '';
  const server = createServer(async (req, res) => {
    const { pathname } = new URL(req.url ?? '/', 'http://fal.test');
    if (req.method === 'GET' && pathname.startsWith('/files/')) {
      const id = pathname.slice('/files/'.length).replace(/\.mp4$/, '');
      if (!jobs.has(id)) return sendJson(res, 404, { detail: 'Not Found' });
      const bytes = bytesOf(id);
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': String(bytes.length) });
      return res.end(bytes);
    }
    if (req.headers.authorization !== `Key ${FAL_KEY}`)
      return sendJson(res, 401, { detail: 'No user found for Key ID and Secret' });
    const m = /^\/([^/]+\/[^/]+)\/requests\/([\w-]+)(\/status|\/cancel)?$/.exec(pathname);
    if (m) {
      const [, app, id, tail] = m;
      const job = jobs.get(id);
      if (!job) return sendJson(res, 404, { detail: `Request ${id} not found` });
      const root = `${base}/${app}/requests/${id}`;
      const age = Date.now() - job.submitted;
      const done = age >= JOB_MS;
      if (req.method === 'GET' && tail === '/status')
        return sendJson(res, 200, {
          status: done ? 'COMPLETED' : age < JOB_MS / 3 ? 'IN_QUEUE' : 'IN_PROGRESS',
          response_url: root,
          logs: null,
        });
      if (req.method === 'PUT' && tail === '/cancel') {
        job.cancelled = true;
        return sendJson(res, done ? 400 : 202, {
          status: done ? 'ALREADY_COMPLETED' : 'CANCELLATION_REQUESTED',
        });
      }
      if (req.method === 'GET' && tail === undefined) {
        if (!done) return sendJson(res, 400, { detail: 'Request is still in progress' });
        job.resultReads++;
        const url = `${base}/files/${id}.mp4`;
        return sendJson(res, 200, {
          video: { url, content_type: 'video/mp4', file_name: `${id}.mp4`, file_size: FILE_BYTES },
          seed: 7,
        });
      }
      return sendJson(res, 405, { detail: 'Method Not Allowed' });
    }
    if (req.method !== 'POST') return sendJson(res, 404, { detail: 'Not Found' });
    for await (const _ of req);
    const endpoint = pathname.slice(1);
    const id = `0199${(++seq).toString(16).padStart(4, '0')}-drill-${Date.now().toString(16)}`;
    jobs.set(id, { submitted: Date.now(), endpoint, resultReads: 0, cancelled: false });
    const app = endpoint.split('/').slice(0, 2).join('/');
    const root = `${base}/${app}/requests/${id}`;
    sendJson(res, 200, {
      request_id: id,
      response_url: root,
      status_url: `${root}/status`,
      cancel_url: `${root}/cancel`,
      queue_position: 0,
    });
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${server.address().port}`;
  return { url: base, jobs, close: () => new Promise((r) => server.close(() => r())) };
}

/** A fresh bucket on the S3-compatible server, emptied and removed at the end. */
async function testBucket(space) {
  const client = new S3Client({
    region: 'us-east-1',
    endpoint: S3_URL,
    forcePathStyle: true,
    credentials: { accessKeyId: S3_ACCESS_KEY, secretAccessKey: S3_SECRET_KEY },
  });
  const Bucket = `kasir-drill-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  try {
    await client.send(new CreateBucketCommand({ Bucket }));
  } catch (err) {
    throw new Error(`the jobs drill needs an S3-compatible server at ${S3_URL} (TEST_S3_URL): ${err}`);
  }
  space.atEnd(async () => {
    const page = await client.send(new ListObjectsV2Command({ Bucket }));
    for (const o of page.Contents ?? []) await client.send(new DeleteObjectCommand({ Bucket, Key: o.Key }));
    await client.send(new DeleteBucketCommand({ Bucket }));
    client.destroy();
  });
  return {
    S3_BUCKET: Bucket,
    S3_ENDPOINT: S3_URL,
    S3_REGION: 'us-east-1',
    S3_ACCESS_KEY_ID: S3_ACCESS_KEY,
    S3_SECRET_ACCESS_KEY: S3_SECRET_KEY,
    S3_FORCE_PATH_STYLE: 'true',
  };
}

/** A funded prepaid account of the round's own, and its key. */
async function fundedKey(db, round) {
  const { createAccount, issueKey } = await import(dist('ledger/accounts.js'));
  const { adjustBalance } = await import(dist('ledger/books.js'));
  const account = await createAccount(db, { label: `jobs drill ${round}` });
  await adjustBalance(db, {
    accountId: account.id,
    kind: 'credit',
    amountMicroUsd: FUNDS,
    reason: 'drill',
    idempotencyKey: 'drill',
  });
  const issued = await issueKey(db, account.id, { spendCapMicroUsd: null });
  return { accountId: account.id, key: issued.key };
}

/** The path and query of a URL kasir handed out (any live instance answers it). */
const pathOf = (url) => {
  const u = new URL(url);
  return `${u.pathname}${u.search}`;
};

async function getJson(url) {
  const res = await request(url);
  const text = await res.body.text();
  return { status: res.statusCode, body: res.statusCode === 200 ? JSON.parse(text) : text };
}

/**
 * Runs the drill and returns one row per round; `rows.every(r => r.equal)` is the verdict.
 * replace: the killed instance comes back on a new, empty data folder (always safe here: media live in S3).
 */
export function runJobsDrill({
  rounds = 3,
  jobs: perRound = 12,
  replace = true,
  log = (line) => console.error(line),
  /** A test's signal: the drill stops its processes and rejects when it aborts (see withDrill). */
  signal,
} = {}) {
  return withDrill('postgres', signal, async (space) => {
    const fal = await fakeFal();
    space.atEnd(() => fal.close());
    const s3 = await testBucket(space);
    const db = await openDrillDb(space.database.url);
    space.atEnd(() => db.close());
    const cluster = await startCluster(space, {
      count: 2,
      env: () => ({
        FAL_KEY,
        FAL_BASE_URL: fal.url,
        MEDIA_POLL_FIRST_MS: '100',
        MEDIA_POLL_MAX_MS: '500',
        ...s3,
      }),
    });
    const { instances, logs } = cluster;
    const rows = [];
    for (let round = 1; round <= rounds; round++) {
      const { accountId, key } = await fundedKey(db, round);
      const submitsBefore = fal.jobs.size;
      const victim = between(0, 2);
      const accepted = []; // { id, statusUrl, instance }
      let refused = 0;
      let cutOff = 0; // submits that got no answer (none: the kill falls between two)
      // The jobs are sent one after another over about a second and a half, to both instances in turn; the victim
      // is killed part-way (between two submits: its accepted jobs are all in flight at fal), the rest go to the
      // survivor.
      const killAt = between(Math.floor(perRound / 2), perRound);
      let killedAt = 0;
      const sends = [];
      for (let i = 0; i < perRound; i++) {
        if (i === killAt) {
          await Promise.all(sends.splice(0));
          await cluster.kill(victim);
          killedAt = Date.now();
        }
        // Once the victim is dead, the rest go to the survivor.
        const target = killedAt ? 1 - victim : i % 2;
        const inst = instances[target];
        const send = (async () => {
          try {
            const res = await request(`${inst.url}/v1/video/generations`, {
              method: 'POST',
              body: JSON.stringify(VIDEO),
              headers: {
                'content-type': 'application/json',
                prefer: 'respond-async',
                authorization: `Bearer ${key}`,
              },
            });
            const text = await res.body.text();
            if (res.statusCode !== 202) {
              refused++;
              return;
            }
            const body = JSON.parse(text);
            accepted.push({ id: body.job_id, statusUrl: body.status_url, instance: target });
          } catch {
            cutOff++;
          }
        })();
        sends.push(send);
        await sleep(between(50, 150));
      }
      await Promise.all(sends);
      if (!killedAt) {
        await cluster.kill(victim);
        killedAt = Date.now();
      }
      await sleep(between(100, 500));
      await cluster.restart(victim, { replace });
      // Every job's status, read through either instance in turn, until it ends.
      const ended = new Map();
      const give = Date.now() + 120_000;
      let turn = 0;
      while (ended.size < accepted.length && Date.now() < give) {
        for (const job of accepted) {
          if (ended.has(job.id)) continue;
          const inst = instances[turn++ % 2];
          const { status, body } = await getJson(`${inst.url}${pathOf(job.statusUrl)}`);
          if (status !== 200) throw new Error(`job ${job.id} status answered ${status}: ${body}`);
          if (body.status === 'succeeded' || body.status === 'failed') ended.set(job.id, body);
        }
        if (ended.size < accepted.length) await sleep(500);
      }
      // The books: each job's row (its hold, quote and fal request), the ledger's charges, the balance and holds.
      const jobRows = await db.kysely
        .selectFrom('jobs')
        .selectAll()
        .where('account_id', '=', accountId)
        .execute();
      const entries = await db.kysely
        .selectFrom('ledger_entries')
        .select(['idempotency_key', 'amount_micro_usd', 'kind'])
        .where('account_id', '=', accountId)
        .execute();
      const account = await db.kysely
        .selectFrom('accounts')
        .selectAll()
        .where('id', '=', accountId)
        .executeTakeFirstOrThrow();
      const chargesOf = (holdId) =>
        entries.filter(
          (e) =>
            (e.kind === 'capture' || e.kind === 'debit') &&
            e.amount_micro_usd < 0 &&
            e.idempotency_key.includes(holdId),
        );
      const problems = [];
      let succeeded = 0;
      let failed = 0;
      let charged = 0;
      let chargedMicroUsd = 0;
      let quotedMicroUsd = 0;
      let adopted = 0;
      const upstreamIds = new Map();
      for (const job of accepted) {
        const row = jobRows.find((r) => r.id === job.id);
        const end = ended.get(job.id);
        if (!row) {
          problems.push({ job: job.id, problem: 'accepted but not in the jobs table' });
          continue;
        }
        const upstreamId = JSON.parse(row.handle).requestId ?? JSON.parse(row.handle).request_id;
        upstreamIds.set(upstreamId, (upstreamIds.get(upstreamId) ?? 0) + 1);
        if (job.instance === victim && row.finished_at && Date.parse(row.finished_at) > killedAt) adopted++;
        const charges = chargesOf(row.hold_id);
        const paid = charges.reduce((s, e) => s - e.amount_micro_usd, 0);
        if (charges.length) charged++;
        chargedMicroUsd += paid;
        if (!end) {
          problems.push({ job: job.id, problem: 'did not end', status: row.status });
          continue;
        }
        if (end.status === 'failed') {
          failed++;
          if (paid !== 0) problems.push({ job: job.id, problem: 'failed but charged', paid });
          continue;
        }
        succeeded++;
        quotedMicroUsd += row.amount_micro_usd;
        if (charges.length !== 1 || paid !== row.amount_micro_usd)
          problems.push({
            job: job.id,
            problem: 'not charged once at its quote',
            charges,
            quote: row.amount_micro_usd,
          });
        if (end.result?.costMicroUsd !== row.amount_micro_usd)
          problems.push({ job: job.id, problem: 'result cost is not the quote', result: end.result });
        // The result delivered: the media link answers the bytes fal made for this job.
        const media = await request(`${instances[turn++ % 2].url}${pathOf(end.result.output.url)}`);
        const got = Buffer.from(await media.body.arrayBuffer());
        if (media.statusCode !== 200 || !got.equals(bytesOf(upstreamId)))
          problems.push({
            job: job.id,
            problem: 'media not delivered',
            status: media.statusCode,
            bytes: got.length,
          });
      }
      const submits = fal.jobs.size - submitsBefore;
      const duplicated = [...upstreamIds.values()].filter((n) => n > 1).length;
      if (duplicated) problems.push({ problem: 'one fal request behind two jobs', duplicated });
      // Each job accepted was sent to fal once: an adoption polls the job, it never submits it again.
      if (submits !== accepted.length || cutOff !== 0 || refused !== 0)
        problems.push({ problem: 'fal submits are not the jobs accepted', submits, refused, cutOff });
      const spent = FUNDS - account.balance_micro_usd;
      const held = Number(account.held_micro_usd ?? 0);
      if (held !== 0) problems.push({ problem: 'money still held', held });
      const row = {
        rail: 'jobs',
        round,
        killed: `instance ${victim}`,
        submitted: accepted.length,
        refused,
        cutOff,
        succeeded,
        failed,
        charged,
        adopted,
        submits,
        chargedMicroUsd,
        quotedMicroUsd,
        spentMicroUsd: spent,
      };
      row.equal =
        problems.length === 0 &&
        succeeded + failed === accepted.length &&
        charged === succeeded &&
        spent === chargedMicroUsd &&
        chargedMicroUsd === quotedMicroUsd;
      if (!row.equal)
        row.unexplained = {
          problems,
          logged: logs
            .flat()
            .filter((l) => l.trim() !== '')
            .slice(-40),
        };
      rows.push(row);
      log(
        `jobs round ${round}: killed ${row.killed}; submitted ${row.submitted} (cut off ${cutOff}, refused ${refused}), ` +
          `succeeded ${succeeded}, failed ${failed}, charged ${charged}, adopted ${adopted} (the killed instance's, finished by another), ` +
          `fal submits ${submits}; balance fell ${spent} for ${chargedMicroUsd} charged, ${quotedMicroUsd} quoted: ` +
          `${row.equal ? 'equal' : 'NOT EQUAL'}`,
      );
      if (row.unexplained) log(`not balanced: ${JSON.stringify(row.unexplained)}`);
    }
    await cluster.stop();
    return rows;
  });
}

/** The jobs drill's rows as a table. */
export function printJobs(rows) {
  printRounds(`jobs: ${rows.length} rounds`, rows, [
    ['submitted', (r) => r.submitted],
    ['succeeded', (r) => r.succeeded],
    ['failed', (r) => r.failed],
    ['charged', (r) => r.charged],
    ['adopted', (r) => r.adopted],
    ['fal submits', (r) => r.submits],
    [
      'spent = charged = quoted',
      (r) => `${r.equal ? 'yes' : 'NO'} (${r.spentMicroUsd} / ${r.chargedMicroUsd} / ${r.quotedMicroUsd})`,
    ],
  ]);
}

if (isMain(import.meta.url)) {
  const rows = await runJobsDrill({
    rounds: Number(arg('rounds', 3)),
    jobs: Number(arg('jobs', 12)),
  });
  printJobs(rows);
  process.exitCode = rows.every((r) => r.equal) ? 0 : 1;
}
