/** Process entry: config → listen (503 until ready) → stores → serve → graceful shutdown. */
import { createApp } from './app.js';
import { buildTokenCounter } from './catalog/tokenizer.js';
import { applyEnvFile } from './config/env-file.js';
import { ConfigError } from './config/error.js';
import { loadConfig } from './config/load.js';
import { onBoundPort } from './config/server.js';
import { createLogger } from './http/logger.js';
import { railSummary } from './rails/summary.js';
import { closeScreenshotBrowsers } from './screenshot/browser.js';
import { bindServer } from './server.js';
import { wire } from './wiring.js';
import { DeadlineError, within } from './within.js';
import { closeWorkerPools } from './workers/pool.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    const taken = await applyEnvFile(process.env);
    if (taken.length > 0) console.error(`kasir: ${taken.length} settings from ${process.env.KASIR_ENV_FILE}`);
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`kasir: ${err.message}`);
      process.exit(78);
    }
    throw err;
  }
  const log = createLogger(config.logLevel);
  // Listening first (answering 503 until ready) lets PORT=0 take a free port and still hand out links that reach it.
  const server = await bindServer(config.host, config.port);
  config = onBoundPort(config, server.port);
  const wired = await wire(config, log);
  server.serve(createApp(wired.deps));
  console.error(`kasir listening on ${server.url} (public ${config.publicBaseUrl})`);
  for (const line of railSummary(config)) console.error(`kasir rail ${line}`);
  // A chat quote counts tokens: the counter is built now, while the server has just started and is idle, rather than
  // inside its first chat call, which every request in flight would wait through.
  const sellsChat = wired.deps.offers.offered().some((e) => e.kind === 'model' && e.category === 'chat');
  if (sellsChat)
    setImmediate(() => {
      try {
        log.info({ ms: Math.round(buildTokenCounter()) }, 'token counter built');
      } catch (err) {
        // Not fatal here: a chat quote builds it again, and answers the error, on its first count.
        log.error({ err }, 'could not build the token counter');
      }
    });

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    await server.stop(config.shutdownTimeoutMs);
    // Stores write what they hold as they close (charges, leases given back, journal rows), retrying a failed
    // write. One that cannot be reached (its database dropped or unreachable) must not keep a stopped instance
    // alive: past the deadline the process ends as a kill would end it, and what it journalled is replayed.
    const closing = (async () => {
      await wired.close();
      await closeScreenshotBrowsers();
      await closeWorkerPools();
    })();
    const closed = await within(closing, config.shutdownTimeoutMs).then(
      () => true,
      (err) => {
        log.error(
          { err },
          err instanceof DeadlineError
            ? 'stores did not close in time; exiting without them'
            : 'stores failed to close; exiting without them',
        );
        return false;
      },
    );
    log.flush();
    process.exit(closed ? 0 : 1);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err) => {
  console.error('kasir failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
