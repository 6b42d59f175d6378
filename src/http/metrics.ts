/** Prometheus metrics of one app: request counts and latency by route and status, plus process metrics. */
import { Counter, collectDefaultMetrics, Registry } from 'prom-client';
import { LabelledCounter } from './hand-metric.js';
import { RequestSeries } from './request-series.js';

export interface Metrics {
  registry: Registry;
  observeRequest(method: string, route: string, status: number, seconds: number): void;
  paidCalls: LabelledCounter<'offer' | 'rail' | 'outcome'>;
  /** Runs of free entries (the lookups) by offer and outcome (served; refused: a 4xx; failed: a 5xx). */
  freeCalls: LabelledCounter<'offer' | 'outcome'>;
  /** Upstream queue reads (a media job's status or result) retried after a transient failure, and given up. */
  upstreamReadRetries: Counter<'provider' | 'read'>;
  upstreamReadGiveUps: Counter<'provider' | 'read'>;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'kasir_' });
  const requests = new RequestSeries([
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 120,
  ]);
  requests.register(
    registry,
    { name: 'kasir_http_requests_total', help: 'HTTP requests by method, route pattern and status' },
    {
      name: 'kasir_http_request_duration_seconds',
      help: 'HTTP request latency by method, route pattern and status',
    },
  );
  // Counted on every call: kept by hand (hand-metric.ts), not by prom-client.
  const paidCalls = new LabelledCounter(registry, {
    name: 'kasir_paid_calls_total',
    help: 'Paid calls by offer, rail and outcome (charged, voided, refused)',
    labelNames: ['offer', 'rail', 'outcome'],
  });
  const freeCalls = new LabelledCounter(registry, {
    name: 'kasir_free_calls_total',
    help: 'Runs of free entries (lookups) by offer and outcome (served, refused with a 4xx, failed with a 5xx)',
    labelNames: ['offer', 'outcome'],
  });
  const upstreamReadRetries = new Counter({
    name: 'kasir_upstream_read_retries_total',
    help: 'Status and result reads of upstream media jobs retried after a 429, 5xx or connection failure',
    labelNames: ['provider', 'read'] as const,
    registers: [registry],
  });
  const upstreamReadGiveUps = new Counter({
    name: 'kasir_upstream_read_give_ups_total',
    help: 'Upstream media jobs given up after their reads kept failing (cancelled upstream, nothing charged)',
    labelNames: ['provider', 'read'] as const,
    registers: [registry],
  });
  return {
    registry,
    paidCalls,
    freeCalls,
    upstreamReadRetries,
    upstreamReadGiveUps,
    observeRequest: (method, route, status, seconds) => requests.observe(method, route, status, seconds),
  };
}
