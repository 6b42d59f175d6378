// A local Frankfurter answering every request with one /latest answer (the first, missed exchange-rate call; every
// later call is a cache hit), and the settings that point kasir at it.
import { createServer } from 'node:http';

export async function startFrankfurter() {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        amount: 1,
        base: 'USD',
        date: '2026-11-24',
        rates: { EUR: 0.8642, IDR: 16744.7, JPY: 157.02 },
      }),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const host = `127.0.0.1:${server.address().port}`;
  return {
    env: { FETCH_ALLOWED_HOSTS: host, FRANKFURTER_BASE_URL: `http://${host}/v1` },
    close: () => server.close(),
  };
}
