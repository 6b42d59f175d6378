/** Everything the app needs, built once by main.ts (or by a test with its own stores and fakes). */
import type { ModelWatch } from './catalog/model-watch.js';
import type { Catalog } from './catalog/types.js';
import type { JobRunner } from './checkout/jobs.js';
import type { Config } from './config/load.js';
import type { SafeFetcher } from './fetch/safe-fetch.js';
import type { Exchange } from './http/exchange.js';
import type { Logger } from './http/logger.js';
import type { Metrics } from './http/metrics.js';
import type { KeyResolver } from './ledger/accounts.js';
import type { Reserves } from './ledger/reserves.js';
import type { Media } from './media/service.js';
import type { OfferRegistry } from './offers/registry.js';
import type { ChatRuntime } from './providers/chat-runtime.js';
import type { ChannelBackend } from './rails/channel/backend.js';
import type { VoucherBell } from './rails/channel/voucher-bell.js';
import type { OpenedMppRail } from './rails/mpp/open.js';
import type { RailRegistry } from './rails/registry.js';
import type { Db } from './store/db.js';
import type { KeyValue } from './store/kv/index.js';

export interface Deps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  db: Db;
  kv: KeyValue;
  media: Media;
  /** Every URL kasir fetches on a caller's behalf goes through it (src/fetch). */
  fetcher: SafeFetcher;
  keys: KeyResolver;
  /** Where prepaid calls' money is reserved and charged: balance leases, or one hold per call. */
  reserves: Reserves;
  rails: RailRegistry;
  /** The MPP rail's secrets (reloaded after a rotation); null when the rail is off. */
  mpp: Pick<OpenedMppRail, 'reload'> | null;
  /** Payment channels (their chain side and where they must pay); null when off. */
  channels: {
    backend: ChannelBackend;
    payee: string;
    currency: string;
    bell: VoucherBell;
    /** What session challenges name and are signed with (rails/channel/session-wire.ts). */
    realm: string;
    secrets: () => Promise<string[]>;
    challengeTtlSeconds: number;
    suggestedDeposit: number;
    /** Answers a request that only manages its channel (rails/channel/management.ts); null for any other. */
    manage: (x: Exchange) => Promise<Response> | null;
  } | null;
  catalog: Catalog;
  /** Chat provider adapters and the retry/fallback router. */
  chat: ChatRuntime;
  /** How each catalog entry runs here (and whether it can). */
  offers: OfferRegistry;
  /** Async jobs: submitted, polled and settled (see checkout/jobs.ts). */
  jobs: JobRunner;
  /** The configured upstreams' model lists: self-hosted models, and catalog models a provider no longer serves. */
  modelWatch?: ModelWatch;
}
