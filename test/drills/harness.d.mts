import type { ChildProcess } from 'node:child_process';

/** A drill's scratch space (see harness.mjs). */
export interface DrillSpace {
  dir: string;
  database: { url: string; drop: () => Promise<void> };
  children: Set<ChildProcess>;
  atEnd: (fn: () => Promise<unknown>) => void;
}

export function withDrill<T>(
  kind: 'sqlite' | 'postgres',
  signal: AbortSignal | undefined,
  body: (space: DrillSpace) => Promise<T>,
): Promise<T>;
