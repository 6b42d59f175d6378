/**
 * Which methods a path is served with, for the 405 of a path served with other methods than the one asked (with
 * `Allow`), where a path no route serves is a 404. Matched by Hono's own trie router over the app's routes, built
 * once on the first miss (every route is registered by then).
 */
import { TrieRouter } from 'hono/router/trie-router';

export function allowedMethods(routes: () => ReadonlyArray<{ method: string; path: string }>) {
  let router: TrieRouter<string> | undefined;
  let methods: string[] = [];
  return (path: string): string[] => {
    if (!router) {
      const built = new TrieRouter<string>();
      const seen = new Set<string>();
      // Middlewares (method ALL) serve no request on their own.
      for (const r of routes()) {
        if (r.method === 'ALL') continue;
        built.add(r.method, r.path, r.method);
        seen.add(r.method);
      }
      router = built;
      methods = [...seen].sort();
    }
    const found = router;
    const allowed = methods.filter((m) => found.match(m, path)[0].length > 0);
    // Hono answers HEAD with the GET route.
    return allowed.includes('GET') && !allowed.includes('HEAD') ? [...allowed, 'HEAD'].sort() : allowed;
  };
}
