/**
 * The private-address guard of the tools' outbound calls: a host that is, or resolves to, a non-public address is
 * refused (after DNS, at connect time, so a name cannot be re-pointed between a check and the connection). The rule
 * is the safe fetcher's (fetch/address-rule.ts), and so is the one exemption: FETCH_ALLOWED_HOSTS (`host:port`).
 */
import { type LookupAddress, type LookupOptions, lookup } from 'node:dns';
import { isIP } from 'node:net';
import { bareHost, hostPort } from '../../config/fetch.js';
import { refusedAddress } from '../../fetch/address-rule.js';

/** True for a globally routable unicast address (the safe fetcher's rule). */
export function isPublicAddress(ip: string): boolean {
  return refusedAddress(ip) === null;
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
  /**
   * Throws PrivateAddressError when `url` may not be reached: an address literal that is not public, or a host that
   * FETCH_ALLOWED_HOSTS exempts on other ports only. A URL whose `host:port` is listed passes.
   */
  checkUrl(url: URL): void;
  /** A `dns.lookup` for the socket's `lookup` option that refuses names resolving to non-public addresses. */
  lookup(hostname: string, options: LookupOptions, callback: LookupCallback): void;
}

const defaultPort = (url: URL) => (url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80);

export function createAddressGuard(allowedHosts: ReadonlySet<string>): AddressGuard {
  // The connect-time lookup sees only the name: a listed host passes there, and checkUrl holds it to its ports.
  const exemptNames = new Set([...allowedHosts].map((hp) => bareHost(hp.replace(/:\d+$/, ''))));
  return {
    checkUrl(url) {
      const host = bareHost(url.hostname);
      if (allowedHosts.has(hostPort(host, defaultPort(url)))) return;
      if (exemptNames.has(host)) {
        throw new PrivateAddressError(
          `${host}:${defaultPort(url)}`,
          'a port FETCH_ALLOWED_HOSTS does not list',
        );
      }
      if (isIP(host) && !isPublicAddress(host)) throw new PrivateAddressError(host, host);
    },
    lookup(hostname, options, callback) {
      lookup(hostname, { ...options, all: true }, (err, addresses) => {
        if (err) {
          callback(err, []);
          return;
        }
        if (!exemptNames.has(bareHost(hostname))) {
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
