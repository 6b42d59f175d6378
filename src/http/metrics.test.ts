// Request metrics: counts and latency buckets per method, route and status, exported in the Prometheus
// format.
import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics.js';

describe('request metrics', () => {
  it('exports counts and cumulative latency buckets per method, route and status in the Prometheus format', async () => {
    const metrics = createMetrics();
    metrics.observeRequest('GET', '/healthz', 200, 0.0004);
    metrics.observeRequest('GET', '/healthz', 200, 0.003);
    metrics.observeRequest('GET', '/healthz', 200, 200);
    metrics.observeRequest('POST', '/v1/chat/completions', 402, 0.02);
    const text = await metrics.registry.metrics();
    const lines = text.split('\n');
    const health = '{method="GET",route="/healthz",status="200"}';
    expect(lines).toContain('# TYPE kasir_http_requests_total counter');
    expect(lines).toContain(`kasir_http_requests_total${health} 3`);
    expect(lines).toContain(
      'kasir_http_requests_total{method="POST",route="/v1/chat/completions",status="402"} 1',
    );
    expect(lines).toContain('# TYPE kasir_http_request_duration_seconds histogram');
    const bucket = (le: string) =>
      lines.find((l) =>
        l.startsWith(`kasir_http_request_duration_seconds_bucket{le="${le}",method="GET",route="/healthz"`),
      );
    expect(bucket('0.001')).toMatch(/ 1$/);
    expect(bucket('0.0025')).toMatch(/ 1$/);
    expect(bucket('0.005')).toMatch(/ 2$/);
    expect(bucket('120')).toMatch(/ 2$/);
    expect(bucket('+Inf')).toMatch(/ 3$/);
    expect(lines).toContain(`kasir_http_request_duration_seconds_count${health} 3`);
    const sum = lines.find((l) => l.startsWith(`kasir_http_request_duration_seconds_sum${health}`));
    expect(Number(sum?.split(' ')[1])).toBeCloseTo(200.0034, 6);
  });

  it('counts a value on a bound into that bound’s bucket, and starts over after a reset', async () => {
    const metrics = createMetrics();
    metrics.observeRequest('GET', '/x', 200, 0.01);
    let text = await metrics.registry.metrics();
    expect(text).toContain(
      'kasir_http_request_duration_seconds_bucket{le="0.005",method="GET",route="/x",status="200"} 0',
    );
    expect(text).toContain(
      'kasir_http_request_duration_seconds_bucket{le="0.01",method="GET",route="/x",status="200"} 1',
    );
    metrics.registry.resetMetrics();
    text = await metrics.registry.metrics();
    expect(text).not.toContain('route="/x"');
  });
});
