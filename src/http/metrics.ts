/** Prometheus metrics of one app: request counts and latency by route and status, plus process metrics. */
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

export interface Metrics {
  registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  paidCalls: Counter<'offer' | 'rail' | 'outcome'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'kasir_' });
  const requests = new Counter({
    name: 'kasir_http_requests_total',
    help: 'HTTP requests by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'kasir_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120],
    registers: [registry],
  });
  const paidCalls = new Counter({
    name: 'kasir_paid_calls_total',
    help: 'Paid calls by offer, rail and outcome (charged, voided, refused)',
    labelNames: ['offer', 'rail', 'outcome'] as const,
    registers: [registry],
  });
  // Route patterns, methods and statuses are bounded sets, so this map stays small.
  const children = new Map<string, { count: { inc(): void }; latency: { observe(v: number): void } }>();
  return {
    registry,
    paidCalls,
    observeRequest(method, route, status, seconds) {
      // One child per label set, found by a plain string key: prom-client would otherwise sort and hash the
      // label object on every request, twice.
      const key = `${method} ${route} ${status}`;
      let child = children.get(key);
      if (!child) {
        const labels = { method, route, status: String(status) };
        child = { count: requests.labels(labels), latency: latency.labels(labels) };
        children.set(key, child);
      }
      child.count.inc();
      child.latency.observe(seconds);
    },
  };
}
