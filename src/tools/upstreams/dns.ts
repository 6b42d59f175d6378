/**
 * DNS lookups for tools/domain-lookup through node:dns's resolver (c-ares), on DNS_SERVERS when set. A name with no
 * record of a type (NODATA) or no name at all (NXDOMAIN) is an empty answer; anything else is a failure.
 */
import { Resolver } from 'node:dns/promises';

export const RECORD_TYPES = ['A', 'AAAA', 'MX', 'NS', 'TXT', 'CNAME', 'CAA'] as const;
export type RecordType = (typeof RECORD_TYPES)[number];

export type RecordValue = string | { priority: number; host: string } | Record<string, unknown>;

const EMPTY = new Set(['ENODATA', 'ENOTFOUND', 'NOTFOUND', 'ENONAME']);

export interface DnsClient {
  /** The records of one type; [] when there are none; `exists: false` when the name does not exist at all. */
  records(name: string, type: RecordType): Promise<{ values: RecordValue[]; nxdomain: boolean }>;
}

export function dnsClient(servers: string[], timeoutMs: number): DnsClient {
  const resolver = new Resolver({ timeout: Math.max(100, Math.floor(timeoutMs / 2)), tries: 2 });
  if (servers.length) resolver.setServers(servers);
  const query: Record<RecordType, (name: string) => Promise<RecordValue[]>> = {
    A: (n) => resolver.resolve4(n),
    AAAA: (n) => resolver.resolve6(n),
    MX: async (n) =>
      (await resolver.resolveMx(n))
        .map((r) => ({ priority: r.priority, host: r.exchange.toLowerCase() }))
        .sort((a, b) => a.priority - b.priority),
    NS: async (n) => (await resolver.resolveNs(n)).map((h) => h.toLowerCase()).sort(),
    // A TXT record arrives in 255-byte chunks; its value is their concatenation.
    TXT: async (n) => (await resolver.resolveTxt(n)).map((chunks) => chunks.join('')),
    CNAME: (n) => resolver.resolveCname(n),
    CAA: async (n) => (await resolver.resolveCaa(n)).map((r) => ({ ...r })),
  };
  return {
    async records(name, type) {
      try {
        return { values: await query[type](name), nxdomain: false };
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        if (EMPTY.has(code)) return { values: [], nxdomain: code !== 'ENODATA' };
        throw err;
      }
    },
  };
}
