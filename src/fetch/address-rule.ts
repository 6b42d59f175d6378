/**
 * The address rule of every fetch kasir makes on a caller's behalf: which host:port may be connected to. DNS is
 * resolved once here; the address that passed is the one the connection uses (see safe-fetch.ts). Exported on its
 * own so a headless browser can apply the same rule to each of its requests.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';
import { bareHost, hostPort } from '../config/fetch.js';

/** One resolved address. */
export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** How names are resolved (tests inject a resolver; by default the system's, as every other client of the host). */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export interface AddressPolicy {
  /** `host:port` pairs exempt from the private-address rule (FETCH_ALLOWED_HOSTS; lower case). */
  allowedHosts: ReadonlySet<string>;
  resolve?: Resolver;
}

export type AddressVerdict =
  | { allowed: true; address: ResolvedAddress; exempt: boolean }
  | { allowed: false; reason: string };

const systemResolver: Resolver = async (host) => {
  const found = await dnsLookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/**
 * Why an address may not be connected to, or null when it may. Only ordinary public unicast passes: loopback,
 * RFC 1918, link-local (169.254.0.0/16 holds the cloud metadata service), carrier-grade NAT, unspecified
 * (0.0.0.0, ::), multicast, reserved, unique-local, and every IPv6 form that embeds an IPv4 address (mapped,
 * NAT64, 6to4, Teredo) are refused. The ranges are ipaddr.js's tables, not a hand-written list.
 */
export function refusedAddress(address: string): string | null {
  const range = refusedRange(address);
  return range ? `${address} is ${range}` : null;
}

/** What kind of refused address this is (`a loopback address`), or null for public unicast. */
function refusedRange(address: string): string | null {
  let parsed: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    parsed = ipaddr.parse(address);
  } catch {
    return 'not an IP address';
  }
  const range = parsed.range();
  return range === 'unicast' ? null : `a ${range} address`;
}

/**
 * Decides whether `host:port` may be connected to: resolves the name once (an IP literal is taken as it is), and
 * refuses when any of its addresses is not public (a name that resolves to a private address among public ones
 * could be pinned to it). A host in the policy's allowlist skips the rule but still resolves once.
 */
export async function checkDestination(
  host: string,
  port: number,
  policy: AddressPolicy,
): Promise<AddressVerdict> {
  const bare = bareHost(host);
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    return { allowed: false, reason: `port ${port} is not valid` };
  const exempt = policy.allowedHosts.has(hostPort(bare, port));
  let addresses: ResolvedAddress[];
  if (ipaddr.isValid(bare)) {
    addresses = [{ address: bare, family: ipaddr.parse(bare).kind() === 'ipv6' ? 6 : 4 }];
  } else {
    try {
      addresses = await (policy.resolve ?? systemResolver)(bare);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      return {
        allowed: false,
        reason: `${bare} does not resolve${typeof code === 'string' ? ` (${code})` : ''}`,
      };
    }
  }
  const first = addresses[0];
  if (!first) return { allowed: false, reason: `${bare} resolves to no address` };
  if (!exempt) {
    for (const a of addresses) {
      const range = refusedRange(a.address);
      if (!range) continue;
      const reason =
        bare === a.address ? `${bare} is ${range}` : `${bare} resolves to ${range} (${a.address})`;
      return { allowed: false, reason };
    }
  }
  return { allowed: true, address: first, exempt };
}
