// A counter kept by hand reads in /metrics as prom-client's own counter would, series by series.
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LabelledCounter } from './hand-metric.js';

describe('LabelledCounter', () => {
  const incs = [
    { offer: 'openai/gpt-4.1-mini', rail: 'prepaid', outcome: 'charged' },
    { offer: 'openai/gpt-4.1-mini', rail: 'prepaid', outcome: 'charged' },
    { offer: 'openai/gpt-4.1-mini', rail: 'x402', outcome: 'charged' },
    { offer: 'openai/gpt-4.1-mini', rail: 'prepaid', outcome: 'voided' },
    { offer: 'tools/qr', rail: 'prepaid', outcome: 'charged' },
  ];
  const options = { name: 'calls_total', help: 'Calls by offer, rail and outcome' };

  it('writes the lines prom-client writes for the same increments', async () => {
    const mine = new Registry();
    const counter = new LabelledCounter(mine, { ...options, labelNames: ['offer', 'rail', 'outcome'] });
    const theirs = new Registry();
    const reference = new Counter({
      ...options,
      labelNames: ['offer', 'rail', 'outcome'],
      registers: [theirs],
    });
    for (const labels of incs) {
      counter.inc(labels);
      reference.inc(labels);
    }
    expect(await mine.metrics()).toBe(await theirs.metrics());
    expect(await mine.metrics()).toContain(
      'calls_total{offer="openai/gpt-4.1-mini",rail="prepaid",outcome="charged"} 2',
    );
  });

  it('keeps series apart whose label values would join alike', async () => {
    const registry = new Registry();
    const counter = new LabelledCounter(registry, { ...options, labelNames: ['offer', 'outcome'] });
    counter.inc({ offer: 'a b', outcome: 'c' });
    counter.inc({ offer: 'a', outcome: 'b c' });
    const lines = (await registry.metrics()).split('\n').filter((l) => l.startsWith('calls_total{'));
    expect(lines).toEqual([
      'calls_total{offer="a b",outcome="c"} 1',
      'calls_total{offer="a",outcome="b c"} 1',
    ]);
  });

  it('starts again from nothing when the registry resets its metrics', async () => {
    const registry = new Registry();
    const counter = new LabelledCounter(registry, { ...options, labelNames: ['offer', 'outcome'] });
    counter.inc({ offer: 'a', outcome: 'served' });
    registry.resetMetrics();
    counter.inc({ offer: 'b', outcome: 'served' });
    const lines = (await registry.metrics()).split('\n').filter((l) => l.startsWith('calls_total{'));
    expect(lines).toEqual(['calls_total{offer="b",outcome="served"} 1']);
  });
});
