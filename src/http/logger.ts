/**
 * The structured logger: pino, written asynchronously. Callers never give it headers, bodies, query strings or
 * keys (the access log names exactly what it writes), which is what keeps secrets out of the logs; a redaction
 * pass on every line would cost more than the rest of the log call.
 */
import pino, { type Logger } from 'pino';
import { LogBatch } from './log-batch.js';

export type { Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'kasir' },
    },
    // Lines gather into ~16 KB writes (each async write is a hop to libuv's thread pool, which on a busy single
    // core costs more than the line itself); a quiet server still writes what it has every 500 ms.
    destination ?? new LogBatch(pino.destination({ sync: false, minLength: 0 }), 16 * 1024, 500),
  );
}
