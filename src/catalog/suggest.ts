/** The ids closest to an unknown model id, for "did you mean" in 404 answers. */

/** Edit distance (insert, delete, substitute), case-insensitive. */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const cur = [i];
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      cur[j] = Math.min((prev[j] ?? 0) + 1, (cur[j - 1] ?? 0) + 1, (prev[j - 1] ?? 0) + cost);
    }
    prev = cur;
  }
  return prev[t.length] ?? 0;
}

/**
 * Ranks every name (ids and aliases, each pointing at its id) by closeness to `query` and returns the first
 * `limit` distinct ids. A name that contains the query (or its model part) ranks first.
 */
export function closestIds(query: string, names: ReadonlyMap<string, string>, limit = 3): string[] {
  const q = query.trim().toLowerCase();
  const tail = q.includes('/') ? q.slice(q.lastIndexOf('/') + 1) : q;
  const scored: Array<{ id: string; score: number }> = [];
  for (const [name, id] of names) {
    const n = name.toLowerCase();
    const nameTail = n.includes('/') ? n.slice(n.lastIndexOf('/') + 1) : n;
    let score = Math.min(editDistance(q, n), editDistance(tail, nameTail) + 1);
    if (tail && (n.includes(tail) || nameTail.startsWith(tail))) score -= 100;
    scored.push({ id, score });
  }
  scored.sort((a, b) => a.score - b.score || a.id.localeCompare(b.id));
  const out: string[] = [];
  for (const { id } of scored) {
    if (!out.includes(id)) out.push(id);
    if (out.length === limit) break;
  }
  return out;
}
