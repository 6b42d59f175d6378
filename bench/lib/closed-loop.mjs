// Paid calls in a closed loop: `callers` loops share `calls` calls, each waiting for its answer before the next.

export const perSecond = (n, ms) => (n / ms) * 1000;

/** Runs `call` `calls` times from `callers` loops; every answer must be a 200. Calls per second and p50/p99 in ms. */
export async function closedLoop(calls, call, callers = 4) {
  const latencies = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next++ < calls) {
        const t0 = performance.now();
        const r = await call();
        if (r.status !== 200) throw new Error(`status ${r.status}: ${r.body.slice(0, 300)}`);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  latencies.sort((a, b) => a - b);
  return {
    rate: perSecond(calls, performance.now() - started),
    p50: latencies[Math.floor(latencies.length / 2)],
    p99: latencies[Math.floor(latencies.length * 0.99)],
  };
}
