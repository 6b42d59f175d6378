/**
 * The access-log line of a request a lane served, written as the logger would write it but without its generic
 * serializer. pino builds each line by walking the fields it is given (a type check, a serializer lookup and an
 * escape scan per field), which on a paid call cost about as much as the rest of its bookkeeping; a lane's method,
 * path and route are fixed, its request id is a sane id (request-id.ts: letters, digits and `._:-`, nothing JSON
 * escapes) and the rest are numbers, so its line is a template. Written here, not in pino: pino has no template
 * lines. The template is used only when it writes, for a sample request, exactly the line pino writes for the same
 * fields at the same time (checked when a lane first logs, and in a test); any logger with its own formatting
 * (hooks, a mixin, a destination that wants each record's fields) keeps pino's own path.
 */
import pino from 'pino';
import type { Logger } from './logger.js';

const { asJsonSym, chindingsSym, hooksSym, mixinSym, streamSym, timeSym } = pino.symbols;
/** pino's number for `info`, the access log's level. */
const INFO = 30;
/** A destination that wants each record's fields (pino's multistream) sets this on itself. */
const needsMetadata = Symbol.for('pino.metadata');

/** Writes the line of one request of the lane: its id, its answer's status, and its duration in ms. */
export type LaneLine = (reqId: string, status: number, ms: number) => void;

type AsJson = (obj: object, msg: string, level: number, time: string) => string;
type Destination = { write(line: string): unknown; [needsMetadata]?: boolean };

/** The fields of a lane request's line, in the order recordRequest gives them. */
const laneFields = (reqId: string, method: string, route: string, status: number, ms: number) => ({
  reqId,
  method,
  path: route,
  route,
  status,
  ms,
});

/** The template writer of `method route`'s lines through `log`, or null when only pino itself writes them alike. */
export function laneAccessLine(log: Logger, method: string, route: string): LaneLine | null {
  const own = log as unknown as Record<symbol, unknown>;
  const stream = own[streamSym] as Destination | undefined;
  const hooks = own[hooksSym] as { streamWrite?: unknown } | undefined;
  if (!stream || own[mixinSym] || hooks?.streamWrite || stream[needsMetadata]) return null;
  const timeNow = own[timeSym] as () => string;
  const middle = `","method":${JSON.stringify(method)},"path":${JSON.stringify(route)},"route":${JSON.stringify(route)},"status":`;
  const format = (time: string, reqId: string, status: number, ms: number) =>
    `{"level":${INFO}${time}${own[chindingsSym] as string},"reqId":"${reqId}${middle}${status},"ms":${ms},"msg":"request"}\n`;
  const time = timeNow.call(log);
  const sample = laneFields('00000000-0000-4000-8000-000000000000', method, route, 200, 12.5);
  const viaPino = (own[asJsonSym] as AsJson).call(log, sample, 'request', INFO, time);
  if (viaPino !== format(time, sample.reqId, sample.status, sample.ms)) return null;
  return (reqId, status, ms) => {
    if (log.isLevelEnabled('info')) stream.write(format(timeNow.call(log), reqId, status, ms));
  };
}
