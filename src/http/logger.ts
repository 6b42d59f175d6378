/** The structured logger: pino, written asynchronously; never given headers, bodies or query strings. */
import pino, { type Logger } from 'pino';

export type { Logger } from 'pino';

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'kasir' },
      // Belt and braces: nothing logs these fields on purpose, and if something ever does they are masked.
      redact: {
        paths: ['authorization', '*.authorization', 'headers.authorization', 'key', '*.apiKey', '*.secret'],
        censor: '[redacted]',
      },
    },
    destination ?? pino.destination({ sync: false, minLength: 4096 }),
  );
}
