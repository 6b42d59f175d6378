// A lane's access-log line: written from a template, it must be byte for byte the line pino writes for the same
// fields (but the time), and pino's own path must stay in charge of any logger that formats lines its own way.
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { recordRequest } from './access-log.js';
import { laneAccessLine } from './lane-access-line.js';
import { createLogger } from './logger.js';
import { createMetrics } from './metrics.js';

function capture() {
  const lines: string[] = [];
  return { lines, stream: { write: (line: string) => void lines.push(line) } };
}

const withoutTime = (line: string) => line.replace(/"time":\d+/, '"time":0');

describe('a lane access line', () => {
  it('is the line pino writes for the same request, for any sane request id, status and duration', () => {
    const viaPino = capture();
    const viaLane = capture();
    const pinoLog = createLogger('info', viaPino.stream);
    const laneLog = createLogger('info', viaLane.stream);
    const line = laneAccessLine(laneLog, 'POST', '/v1/chat/completions');
    expect(line).not.toBeNull();
    const metrics = createMetrics();
    const cases: Array<[string, number]> = [
      ['d8a6f8a7-addf-4d68-a8a5-e79ee070491f', 200],
      ['trace-node.1:retry_2', 402],
      ['A', 503],
    ];
    const started = performance.now() - 12.34;
    for (const [reqId, status] of cases) {
      const served = {
        reqId,
        method: 'POST',
        path: '/v1/chat/completions',
        route: '/v1/chat/completions',
        status,
        started,
      };
      recordRequest(pinoLog, metrics, served);
      recordRequest(laneLog, metrics, served, line);
    }
    expect(viaLane.lines).toHaveLength(cases.length);
    const ours = viaLane.lines.map(withoutTime);
    // The durations differ by the time between the two calls: each is checked apart from the rest of its line.
    const ms = (l: string) => Number(/"ms":([\d.]+)/.exec(l)?.[1]);
    const rest = (l: string) => withoutTime(l).replace(/"ms":[\d.]+/, '"ms":0');
    viaPino.lines.forEach((expected, i) => {
      const mine = ours[i] as string;
      expect(ms(mine)).toBeGreaterThanOrEqual(12.3);
      expect(rest(mine)).toBe(rest(expected));
      expect(JSON.parse(mine)).toMatchObject({
        level: 30,
        service: 'kasir',
        reqId: cases[i]?.[0],
        msg: 'request',
      });
    });
  });

  it('writes nothing when the logger is above info', () => {
    const out = capture();
    const log = createLogger('warn', out.stream);
    laneAccessLine(log, 'POST', '/v1/chat/completions')?.('abc', 200, 1);
    expect(out.lines).toEqual([]);
  });

  it('is left to pino for a logger with its own formatting (a mixin, a write hook, other fields first)', () => {
    const out = capture();
    const mixin = pino({ mixin: () => ({ zone: 'a' }) }, out.stream);
    const hooked = pino({ hooks: { streamWrite: (s) => s } }, out.stream);
    const renamed = pino({ messageKey: 'message' }, out.stream);
    const levels = pino({ formatters: { level: (label) => ({ level: label }) } }, out.stream);
    for (const log of [mixin, hooked, renamed, levels]) expect(laneAccessLine(log, 'POST', '/x')).toBeNull();
  });
});
