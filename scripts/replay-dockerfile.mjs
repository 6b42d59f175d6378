#!/usr/bin/env node
// Replays the Dockerfile on a machine with no container engine: each stage's COPY and RUN lines, in order, in a
// folder standing for that stage's file system; then starts the last stage's CMD as an unprivileged user, waits
// for its HEALTHCHECK to pass, checks a real request, and stops it with SIGTERM. CI runs it, so the image's steps
// are the ones tested. Hand-written: Docker's own builder needs an engine, which this machine does not have.
//
//   node scripts/replay-dockerfile.mjs [--instances N] [--env KEY=VALUE ...] [--keep]
//
// What it cannot do, it refuses rather than imitates: an instruction it does not know, a RUN or COPY that would
// reach outside the stage's folder. Container paths (/app, /home/node/data) map into the stage's folder; so do ENV
// values that are absolute paths. The base images' own files are this machine's (its Node and, for native modules,
// its compiler), which is what the image's node:20-bookworm stages provide.
import { spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const context = process.cwd();
const args = process.argv.slice(2);
const extraEnv = {};
let instances = 1;
let keep = false;
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--instances') instances = Number(args[++i]);
  else if (args[i] === '--env') {
    const [k, ...v] = args[++i].split('=');
    extraEnv[k] = v.join('=');
  } else if (args[i] === '--keep') keep = true;
  else throw new Error(`unknown argument ${args[i]}`);
}

/** The Dockerfile as instructions: continuation lines joined, comments and blank lines dropped. */
function instructions(text) {
  const out = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd();
    if (!pending && (line.trim().startsWith('#') || !line.trim())) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    const full = (pending + line).trim();
    pending = '';
    const space = full.indexOf(' ');
    out.push({ op: full.slice(0, space).toUpperCase(), rest: full.slice(space + 1).trim() });
  }
  return out;
}

/** `--name=value` flags at the start of an instruction, and what follows them. */
function flags(rest) {
  const found = {};
  let body = rest;
  while (body.startsWith('--')) {
    const end = body.indexOf(' ');
    const [k, v] = body.slice(2, end).split('=');
    found[k] = v;
    body = body.slice(end + 1).trim();
  }
  return { found, body };
}

/** Exec form (a JSON array) or shell form. */
const command = (body) => (body.startsWith('[') ? JSON.parse(body) : ['/bin/sh', '-c', body]);

/** KEY=VALUE pairs of ENV (values without spaces, as this Dockerfile writes them). */
function envPairs(body) {
  return Object.fromEntries(body.split(/\s+/).map((pair) => pair.split('=')));
}

/** .dockerignore as Docker reads it: patterns anchored at the context's root, `*` within one name, `**` across names; a
 * path is excluded when it or a folder above it matches. */
function ignoredBy(patterns) {
  const tests = patterns.map(
    (p) =>
      new RegExp(
        `^${p
          .replace(/^\/+/, '')
          .replace(/[.+^${}()|[\]\\]/g, '\\$&')
          .replaceAll('**', '\u0000')
          .replaceAll('*', '[^/]*')
          .replaceAll('\u0000', '.*')}$`,
      ),
  );
  return (relative) => {
    const parts = relative.split(path.sep);
    return parts.some((_, i) => tests.some((t) => t.test(parts.slice(0, i + 1).join('/'))));
  };
}

const ignorePath = path.join(context, '.dockerignore');
const ignored = ignoredBy(
  existsSync(ignorePath)
    ? readFileSync(ignorePath, 'utf8')
        .split('\n')
        .map((l) => l.trim())
        .filter((l) => l && !l.startsWith('#'))
    : [],
);

const scratch = mkdtempSync(path.join(os.tmpdir(), 'kasir-image-'));
chmodSync(scratch, 0o755);
const stages = new Map();
let stage;

/** A container path inside the current stage's folder; refuses to leave it. */
function inStage(root, containerPath) {
  const target = path.join(root, path.resolve('/', containerPath));
  if (!target.startsWith(root)) throw new Error(`${containerPath} leaves the stage`);
  return target;
}

function copy(from, to) {
  cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => !from.startsWith(context) || src === from || !ignored(path.relative(context, src)),
  });
}

const started = Date.now();
for (const { op, rest } of instructions(readFileSync(path.join(context, 'Dockerfile'), 'utf8'))) {
  if (op === 'FROM') {
    const [image, , name] = rest.split(/\s+/);
    const root = path.join(scratch, name ?? `stage${stages.size}`);
    mkdirSync(root, { recursive: true });
    chmodSync(root, 0o755);
    stage = { image, root, workdir: '/', env: {}, user: 'root' };
    stages.set(name, stage);
    console.error(`replay: FROM ${image} → ${name}`);
  } else if (op === 'WORKDIR') {
    stage.workdir = path.resolve(stage.workdir, rest);
    mkdirSync(inStage(stage.root, stage.workdir), { recursive: true });
  } else if (op === 'ENV') {
    Object.assign(stage.env, envPairs(rest));
  } else if (op === 'COPY') {
    const { found, body } = flags(rest);
    const parts = body.split(/\s+/);
    const last = parts.pop();
    const dest = inStage(stage.root, path.resolve(stage.workdir, last));
    // Docker's rule: into the folder when the destination ends with a slash or there are several sources.
    const into = last.endsWith('/') || parts.length > 1;
    for (const source of parts) {
      if (!found.from && ignored(source)) throw new Error(`COPY ${source}: excluded by .dockerignore`);
      const from = found.from ? inStage(stages.get(found.from).root, source) : path.join(context, source);
      copy(from, into ? path.join(dest, path.basename(source)) : dest);
    }
  } else if (op === 'RUN') {
    const [file, ...argv] = command(rest);
    const t0 = Date.now();
    console.error(`replay: RUN ${rest}`);
    const run = spawnSync(file, argv, {
      cwd: inStage(stage.root, stage.workdir),
      env: { ...process.env, ...stage.env },
      stdio: ['ignore', 2, 2],
    });
    if (run.status !== 0) throw new Error(`RUN ${rest} exited ${run.status}`);
    console.error(`replay: … ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } else if (op === 'USER') stage.user = rest;
  else if (op === 'HEALTHCHECK') {
    const { found, body } = flags(rest);
    stage.health = {
      argv: command(body.replace(/^CMD\s+/, '')),
      startPeriod: Number.parseInt(found['start-period'] ?? '0', 10),
    };
  } else if (op === 'CMD') stage.cmd = command(rest);
  else if (!['EXPOSE', 'VOLUME', 'ARG', 'LABEL'].includes(op))
    throw new Error(`replay: ${op} is not supported`);
}
console.error(`replay: stages built in ${((Date.now() - started) / 1000).toFixed(0)} s`);

// The last stage runs: as an unprivileged user when the image names one (nobody stands for `node` here), its
// absolute ENV paths inside its folder, on a free port.
const run = stage;
if (!run.cmd) throw new Error('the Dockerfile has no CMD');
if (run.user === 'root') throw new Error('the image runs as root');
const asRoot = process.getuid?.() === 0;
const mapped = Object.fromEntries(
  Object.entries(run.env).map(([k, v]) => [k, v.startsWith('/') ? inStage(run.root, v) : v]),
);
for (const value of Object.values(run.env)) {
  if (!value.startsWith('/')) continue;
  const home = inStage(run.root, path.dirname(value));
  mkdirSync(home, { recursive: true });
  if (asRoot) chownSync(home, 65534, 65534);
}

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const privileged = asRoot ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--'] : [];
const children = [];
try {
  for (let i = 0; i < instances; i++) {
    const port = await freePort();
    const env = {
      PATH: process.env.PATH,
      ...mapped,
      HOST: '127.0.0.1',
      PORT: String(port),
      ...(instances > 1 ? { DATA_DIR: `${mapped.DATA_DIR ?? inStage(run.root, '/data')}-${i}` } : {}),
      ...extraEnv,
    };
    const [file, ...argv] = [...privileged, ...run.cmd];
    const child = spawn(file, argv, {
      cwd: inStage(run.root, run.workdir),
      env,
      stdio: ['ignore', 'ignore', 2],
    });
    children.push({ child, port, env });
  }
  for (const { port, env } of children) {
    const deadline = Date.now() + Math.max(run.health?.startPeriod ?? 30, 30) * 1000;
    for (;;) {
      const [file, ...argv] = run.health.argv;
      const probe = spawnSync(file, argv, { env, timeout: 3000 });
      if (probe.status === 0) break;
      if (Date.now() > deadline) throw new Error(`instance on port ${port} never became healthy`);
      await new Promise((r) => setTimeout(r, 500));
    }
    const models = await fetch(`http://127.0.0.1:${port}/v1/models`);
    if (models.status !== 200) throw new Error(`GET /v1/models answered ${models.status}`);
    console.error(`replay: instance on port ${port} healthy; /v1/models 200`);
  }
  for (const { child } of children) {
    const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
    child.kill('SIGTERM');
    const { code, signal } = await exited;
    if (code !== 0) throw new Error(`instance stopped with ${code ?? signal} after SIGTERM`);
  }
  console.log(
    JSON.stringify({
      image: 'replayed',
      stages: [...stages.keys()],
      instances,
      seconds: Math.round((Date.now() - started) / 1000),
    }),
  );
} finally {
  for (const { child } of children) if (child.exitCode === null) child.kill('SIGKILL');
  if (!keep) rmSync(scratch, { recursive: true, force: true });
}
