/**
 * Request counts and latency buckets by method, route pattern and status, kept by hand (see hand-metric.ts for why).
 */
import type { Registry } from 'prom-client';
import { branch, handMetric, type Labels, type ValueLine } from './hand-metric.js';

interface Series {
  labels: Labels;
  count: number;
  sum: number;
  /** Observations per bucket (not cumulative); the last slot is above the highest bound. */
  buckets: Float64Array;
}

export class RequestSeries {
  /** Every series, in the order first seen: what /metrics lists. */
  private readonly all: Series[] = [];
  /**
   * The series by route, method and status. Looked up a key at a time rather than by one joined key: a route
   * pattern and a method are the same string objects request after request, whose hashes V8 keeps, and a status is
   * a number, where a joined key is a new string to build and hash on every request.
   */
  private readonly index = new Map<string, Map<string, Map<number, Series>>>();

  constructor(private readonly bounds: readonly number[]) {}

  /** Counts one request of `method route status` that took `seconds`. */
  observe(method: string, route: string, status: number, seconds: number): void {
    const byStatus = branch(branch(this.index, route), method);
    let s = byStatus.get(status);
    if (!s) {
      s = {
        labels: { method, route, status: String(status) },
        count: 0,
        sum: 0,
        buckets: new Float64Array(this.bounds.length + 1),
      };
      byStatus.set(status, s);
      this.all.push(s);
    }
    s.count++;
    s.sum += seconds;
    let i = 0;
    while (i < this.bounds.length && seconds > (this.bounds[i] ?? 0)) i++;
    s.buckets[i] = (s.buckets[i] ?? 0) + 1;
  }

  /** Registers a counter of requests and a histogram of their latency under these names. */
  register(
    registry: Registry,
    counter: { name: string; help: string },
    histogram: { name: string; help: string },
  ) {
    const counterValues = (): ValueLine[] => this.all.map((s) => ({ labels: s.labels, value: s.count }));
    const histogramValues = (): ValueLine[] => {
      const lines: ValueLine[] = [];
      for (const s of this.all) {
        let cumulative = 0;
        this.bounds.forEach((bound, i) => {
          cumulative += s.buckets[i] ?? 0;
          lines.push({
            labels: { le: String(bound) },
            sharedLabels: s.labels,
            value: cumulative,
            metricName: `${histogram.name}_bucket`,
          });
        });
        lines.push(
          {
            labels: { le: '+Inf' },
            sharedLabels: s.labels,
            value: s.count,
            metricName: `${histogram.name}_bucket`,
          },
          { labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${histogram.name}_sum` },
          { labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${histogram.name}_count` },
        );
      }
      return lines;
    };
    const reset = () => {
      this.index.clear();
      this.all.length = 0;
    };
    registry.registerMetric(handMetric(counter.name, counter.help, 'counter', counterValues, reset));
    registry.registerMetric(handMetric(histogram.name, histogram.help, 'histogram', histogramValues, reset));
  }
}
