/**
 * Metrics kept by hand in plain maps and handed to prom-client's registry only when /metrics is read. Written by
 * hand because prom-client validates and hashes the labels again on every observation, even through a labelled
 * child (about 270 ns a counter increment with three labels), which on a small request costs more than the rest
 * of its bookkeeping. Label sets are bounded (offers × rails × outcomes, routes × methods × statuses), so the maps
 * stay small. A series is found a label at a time: label values are the same string objects call after call (an
 * offer id, a rail id, a route pattern), whose hashes V8 keeps, where one key joined from them would be a new string
 * to build and hash on every call.
 */
import type { Metric, Registry } from 'prom-client';

export type Labels = Record<string, string>;

/** One value line as prom-client's registry formats it; `sharedLabels` follow `labels` (the `le` of a bucket). */
export interface ValueLine {
  labels: Labels;
  sharedLabels?: Labels;
  value: number;
  metricName?: string;
}

/** A metric the registry reads through get() and reset(), the two it needs. */
export function handMetric(
  name: string,
  help: string,
  type: 'counter' | 'histogram',
  values: () => ValueLine[],
  reset: () => void,
): Metric {
  return {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, values: values(), aggregator: 'sum' }),
    reset,
  } as unknown as Metric;
}

/** The map under `key` in `parent`, made (empty) when first asked for: one level of a series index. */
export function branch<K, V extends Map<unknown, unknown>>(parent: Map<K, V>, key: K): V {
  let child = parent.get(key);
  if (!child) {
    child = new Map() as V;
    parent.set(key, child);
  }
  return child;
}

interface CounterSeries {
  labels: Labels;
  value: number;
}

/** A counter by a fixed list of labels, registered on `registry` under `name`. */
export class LabelledCounter<L extends string> {
  /** Every series, in the order first seen: what /metrics lists. */
  private readonly all: CounterSeries[] = [];
  /** The series by the first label's value, then the next's, …; the last level holds the series. */
  private readonly index = new Map<string, unknown>();

  private readonly labelNames: readonly [L, ...L[]];

  constructor(registry: Registry, options: { name: string; help: string; labelNames: readonly [L, ...L[]] }) {
    this.labelNames = options.labelNames;
    registry.registerMetric(
      handMetric(
        options.name,
        options.help,
        'counter',
        () => this.all.map((s) => ({ labels: s.labels, value: s.value })),
        () => {
          this.index.clear();
          this.all.length = 0;
        },
      ),
    );
  }

  /** Counts one more of `labels`. */
  inc(labels: Record<L, string>): void {
    const names = this.labelNames;
    const last = names.length - 1;
    let level = this.index;
    for (let i = 0; i < last; i++)
      level = branch(level as Map<string, Map<string, unknown>>, labels[names[i] as L]);
    const value = labels[names[last] as L];
    let s = level.get(value) as CounterSeries | undefined;
    if (!s) {
      s = { labels: { ...labels }, value: 0 };
      level.set(value, s);
      this.all.push(s);
    }
    s.value++;
  }
}
