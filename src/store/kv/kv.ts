/** The key-value port: rate-limit counters, replay keys and short caches. Memory by default, Redis when configured. */

export interface WindowCount {
  /** Hits in the current window, this one included. */
  count: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface KeyValue {
  readonly kind: 'memory' | 'redis';
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets the key only if it does not exist; true when this call set it (an atomic claim). */
  setIfAbsent(key: string, value: string, ttlMs: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Counts a hit in a fixed window that starts at the first hit and lasts `windowMs`. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  close(): Promise<void>;
}
