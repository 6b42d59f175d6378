/**
 * The private-address guard of the tools' outbound calls: a host that resolves to a loopback, private, link-local
 * or otherwise non-public address is refused (after DNS, at connect time, so a name cannot be re-pointed between a
 * check and the connection), unless the operator lists that host in TOOL_TRUSTED_HOSTS.
 */
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** True for a globally routable unicast address (IPv4, IPv6, IPv4-mapped IPv6). */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  let addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress()) {
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  }
  return addr.range() === 'unicast';
}

export class PrivateAddressError extends Error {
  readonly code = 'KASIR_PRIVATE_ADDRESS';
  constructor(host: string, address: string) {
    super(`${host} resolves to ${address}, a non-public address kasir does not reach`);
    this.name = 'PrivateAddressError';
  }
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

export interface AddressGuard {
  /** Throws PrivateAddressError when `url`'s host is an address literal that is not public (and not trusted). */
  checkUrl(url: URL): void;
  /** A `dns.lookup` for the socket's `lookup` option that refuses names resolving to non-public addresses. */
  lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void;
}

/** Brackets and case removed, as hosts are compared. */
const bare = (host: string) => host.replace(/^\[|\]$/g, '').toLowerCase();

export function createAddressGuard(trustedHosts: readonly string[]): AddressGuard {
  const trusted = new Set(trustedHosts.map(bare));
  return {
    checkUrl(url) {
      const host = bare(url.hostname);
      if (trusted.has(host) || !isIP(host)) return;
      if (!isPublicAddress(host)) throw new PrivateAddressError(host, host);
    },
    lookup(hostname, options, callback) {
      lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) {
          callback(err, []);
          return;
        }
        if (!trusted.has(bare(hostname))) {
          const bad = addresses.find((a) => !isPublicAddress(a.address));
          if (bad) {
            callback(new PrivateAddressError(hostname, bad.address), []);
            return;
          }
        }
        if (options.all) callback(null, addresses);
        else {
          const first = addresses[0] as LookupAddress;
          callback(null, first.address, first.family);
        }
      });
    },
  };
}
