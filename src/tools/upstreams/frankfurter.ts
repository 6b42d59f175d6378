/** Frankfurter (ECB reference rates, https://frankfurter.dev/v1/): the latest table against the US dollar. */
import type { CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';

interface LatestAnswer {
  amount: number;
  base: string;
  date: string;
  rates: Record<string, number>;
}

export interface UsdTable {
  /** The ECB publication date (YYYY-MM-DD). */
  date: string;
  /** Units of each currency per US dollar, USD itself included. */
  perUsd: Record<string, number>;
}

export function frankfurter(deps: ToolDeps) {
  const api = new JsonUpstream('frankfurter', deps.config.tools.baseUrls.frankfurter, deps.http);
  return {
    /** GET /latest?base=USD: every currency the ECB publishes, per dollar. */
    async usdTable(signal: CallSignal): Promise<UsdTable> {
      const answer = await api.get<LatestAnswer>('/latest', { base: 'USD' }, signal);
      if (!answer || typeof answer.rates !== 'object' || typeof answer.date !== 'string') {
        throw new UpstreamError('upstream', 'frankfurter answered without rates', { beforeFirstByte: true });
      }
      return { date: answer.date, perUsd: { ...answer.rates, USD: 1 } };
    },
  };
}
