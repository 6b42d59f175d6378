/** Opens every store the configuration names and assembles the Deps; closes them again in reverse order. */
import path from 'node:path';

import { loadCatalog } from './catalog/load.js';
import { logReadings, startModelWatch } from './catalog/model-watch.js';
import { JobRunner } from './checkout/jobs.js';
import { startSweeper } from './checkout/sweeper.js';
import type { Config } from './config/load.js';
import type { Deps } from './deps.js';
import { operatorHosts } from './fetch/operator-hosts.js';
import { SafeFetcher } from './fetch/safe-fetch.js';
import type { Exchange } from './http/exchange.js';
import type { Logger } from './http/logger.js';
import { createMetrics } from './http/metrics.js';
import { KeyResolver } from './ledger/accounts.js';
import { ChargeJournal, thisProcess } from './ledger/charge-journal.js';
import { replayOrphanJournals } from './ledger/journal-replay.js';
import { PgChargeJournal } from './ledger/pg-journal.js';
import { replayDeadOwners } from './ledger/pg-journal-replay.js';
import { Reserves } from './ledger/reserves.js';
import { openBlobStore } from './media/index.js';
import { createMedia } from './media/service.js';
import { FileInputs } from './offers/media-files.js';
import { createOfferRegistry } from './offers/registry.js';
import { createChatRouter } from './providers/chat-router.js';
import { createMediaProviders } from './providers/media/registry.js';
import { createChatProviders } from './providers/registry.js';
import type { ChannelBackend } from './rails/channel/backend.js';
import { VoucherBell } from './rails/channel/voucher-bell.js';
import { loadVoucherSignature } from './rails/channel/voucher-signature.js';
import { loadSecrets } from './rails/mpp/secrets.js';
import { dropExpiredReplayKeys } from './rails/mpp/store.js';
import { createPrepaidRail } from './rails/prepaid.js';
import { createRailRegistry } from './rails/registry.js';
import type { Rail } from './rails/types.js';
import type { X402SignerOverrides } from './rails/x402/open.js';
import { openDb } from './store/db.js';
import { openKv } from './store/kv/index.js';
import { createToolHttp } from './tools/upstreams/tool-http.js';

export interface Wired {
  deps: Deps;
  close(): Promise<void>;
}

export interface WireOptions {
  /** Settling signers that replace the configured ones (tests: a local Solana or Algorand ledger). */
  x402Signers?: X402SignerOverrides;
  /** The chain side of payment channels (tests: an in-process fake escrow). */
  channelBackend?: ChannelBackend;
}

export async function wire(config: Config, log: Logger, options: WireOptions = {}): Promise<Wired> {
  const closers: Array<() => Promise<void>> = [];
  try {
    // Before any store opens: a bad catalog entry stops start-up at once, naming the entry and field.
    const catalog = loadCatalog({ marginPercent: config.providerMarginPercent });
    // Read in the background: start-up never waits for an upstream's model list.
    const modelWatch = startModelWatch(config, catalog, (readings) => logReadings(log, readings));
    closers.push(async () => modelWatch.stop());
    const db = await openDb(config.database);
    closers.push(() => db.close());
    const kv = await openKv(config.redisUrl);
    closers.push(() => kv.close());
    const blobs = await openBlobStore(config.media);
    closers.push(() => blobs.close());
    const media = createMedia({
      db,
      blobs,
      publicBaseUrl: config.publicBaseUrl,
      mediaBaseUrl: config.mediaPublicBaseUrl,
      maxBytes: config.mediaMaxBytes,
    });
    const keys = new KeyResolver(db);
    // Before serving: calls a stopped instance answered but had not written to the database are charged now, and
    // its leases and holds released (see ledger/charge-journal.ts).
    const journalDir = path.join(config.dataDir, 'journal');
    const owner = thisProcess();
    // With PostgreSQL the journal is rows there (any instance replays a dead one's, whatever became of its disk);
    // journal files are still replayed, for an instance that ran before its journal moved.
    const replay = async () => {
      const report = await replayOrphanJournals(db, journalDir, owner, log);
      const rows = await replayDeadOwners(db, owner, log);
      if (report.files > 0) log.info(report, 'replayed the charge journal of a stopped instance');
      if (rows.files > 0) log.info(rows, 'replayed the charge journal rows of a stopped instance');
      return { ...report, failed: report.failed + rows.failed };
    };
    // A replay that fails (a deadlock with another instance, say) is retried; one that still fails is left to
    // the sweeper rather than keeping the service down.
    for (let attempt = 1; (await replay()).failed > 0 && attempt < 3; attempt++)
      await new Promise((r) => setTimeout(r, 200 * attempt));
    const journal =
      db.kind === 'postgres' && config.chargeJournal === 'database'
        ? await PgChargeJournal.open(db.pool, owner, (err) =>
            log.error({ err }, 'charge journal write failed; retrying'),
          )
        : ChargeJournal.open(journalDir, owner);
    closers.push(async () => journal.close());
    const reserves = new Reserves(db, {
      maxMicroUsd: config.leaseMaxMicroUsd,
      idleMs: config.leaseIdleMs,
      ttlSeconds: config.holdTtlSeconds,
      journal,
      onWriteError: (err, detail) => log.error({ err, ...detail }, 'could not write charges'),
    });
    // Closed before the journal and the database: what this instance leased goes back to the accounts.
    closers.push(() => reserves.close());
    // A wallet rail's modules (every x402 chain's SDK, mppx's server, Stripe) load only when the configuration turns
    // the rail on: an instance selling on keys alone starts without them.
    const x402 =
      config.x402.chains.length > 0
        ? await (await import('./rails/x402/open.js')).openX402Rail(
            config.x402,
            { db, log },
            options.x402Signers,
          )
        : null;
    const mpp =
      config.mpp.tempo || config.mpp.stripe
        ? await (await import('./rails/mpp/open.js')).openMppRail(config, { db, log })
        : null;
    const { tempo, channels: channelConfig } = config.mpp;
    // Channels' modules (mppx's session wire and Tempo code) load only when channels are on.
    const channelCode =
      tempo && channelConfig
        ? await Promise.all([
            import('./rails/channel/rail.js'),
            import('./rails/channel/management.js'),
            loadVoucherSignature(),
          ])
        : null;
    const channelParts =
      tempo && channelConfig
        ? {
            backend:
              options.channelBackend ??
              (await import('./rails/channel/backend.js')).tempoChannelBackend(tempo, channelConfig),
            payee: tempo.recipient,
            currency: tempo.currency,
            bell: new VoucherBell(),
            realm: config.mpp.realm ?? new URL(config.publicBaseUrl).host,
            secrets: async () => (await loadSecrets(db)).map((s) => s.secret),
            challengeTtlSeconds: config.mpp.challengeTtlSeconds,
            suggestedDeposit: channelConfig.suggestedDeposit,
          }
        : null;
    const channels =
      channelParts && channelCode
        ? {
            ...channelParts,
            manage: (x: Exchange) => channelCode[1].channelManagement({ db, ...channelParts }, x),
          }
        : null;
    if (mpp) closers.push(async () => mpp.close());
    const rails = createRailRegistry(
      [
        createPrepaidRail({ db, keys, reserves }),
        mpp?.rail ?? null,
        channels && channelCode
          ? channelCode[0].createChannelRail({ db, ...channels, holdTtlSeconds: config.holdTtlSeconds })
          : null,
        x402,
      ].filter((r): r is Rail => r !== null),
    );
    const chatProviders = createChatProviders(config);
    closers.push(() => chatProviders.close());
    const chatRouter = createChatRouter({
      retries: config.upstreamRetries,
      onFailedAttempt: (f) =>
        log.warn(
          {
            provider: f.target.provider.name,
            model: f.target.model,
            attempt: f.attempt,
            next: f.next,
            err: String(f.error),
          },
          'upstream attempt failed',
        ),
    });
    const chat = { providers: chatProviders, router: chatRouter, callTimeoutMs: config.chatTimeouts.callMs };
    // The tools' own upstreams: those the operator configured are trusted on private addresses (fetch/operator-hosts.ts).
    const toolHttp = createToolHttp(
      config.tools,
      new Set([...config.fetch.allowedHosts, ...operatorHosts(config)]),
    );
    closers.push(() => toolHttp.close());
    const fetcher = new SafeFetcher({
      allowedHosts: config.fetch.allowedHosts,
      maxRedirects: config.fetch.maxRedirects,
      timeoutMs: config.fetch.timeoutMs,
    });
    const metrics = createMetrics();
    const mediaProviders = createMediaProviders(config, {
      retried: (provider, read) => metrics.upstreamReadRetries.inc({ provider, read }),
      gaveUp: (provider, read) => metrics.upstreamReadGiveUps.inc({ provider, read }),
    });
    closers.push(() => mediaProviders.close());
    const files = new FileInputs({
      media,
      fetcher,
      publicBaseUrl: config.publicBaseUrl,
      maxBytes: config.fetch.maxBytes,
    });
    const mediaRuntime = { files, fetcher, media, limits: config.fetch };
    const offers = createOfferRegistry({
      config,
      catalog,
      media,
      fetcher,
      chat,
      log,
      kv,
      http: toolHttp,
      mediaProviders,
      mediaRuntime,
      served: modelWatch,
    });
    const jobs = new JobRunner({
      db,
      log,
      rails,
      offerOf: (id) => {
        const entry = catalog.find(id);
        return entry ? offers.offerFor(entry) : undefined;
      },
      publicBaseUrl: config.publicBaseUrl,
      settings: {
        pollFirstMs: config.mediaModels.pollFirstMs,
        pollMaxMs: config.mediaModels.pollMaxMs,
        deadlineMs: config.mediaModels.jobDeadlineMs,
        // The submit's own request gives up at its first-byte timeout; this backstop adds time for its body.
        submitMs: config.mediaModels.firstByteTimeoutMs + 30_000,
      },
    });
    jobs.start();
    // Stopped first on the way down: open jobs stay in the table for the next instance.
    closers.push(() => jobs.stop());
    const deps: Deps = {
      config,
      log,
      metrics,
      db,
      kv,
      media,
      fetcher,
      keys,
      reserves,
      rails,
      mpp,
      channels,
      catalog,
      chat,
      offers,
      jobs,
      modelWatch,
    };
    const stopSweeper = startSweeper(
      db,
      log,
      config.holdTtlSeconds,
      config.sweepIntervalSeconds,
      async () => {
        await replay();
        await dropExpiredReplayKeys(db);
      },
    );
    closers.push(async () => stopSweeper());
    return { deps, close: () => closeAll(closers) };
  } catch (err) {
    await closeAll(closers);
    throw err;
  }
}

async function closeAll(closers: Array<() => Promise<void>>): Promise<void> {
  for (const close of closers.reverse()) await close().catch(() => {});
}
