/**
 * RDAP (RFC 9082/9083) for domains: the registry's RDAP server for a TLD from IANA's bootstrap file (RFC 9224,
 * RDAP_BOOTSTRAP_URL), then `GET {server}domain/{name}`. Servers named by the bootstrap file are reached through
 * the private-address guard like any other upstream.
 */
import { CallAbort, type CallSignal } from '../../http/call-signal.js';
import { UpstreamError } from '../../http/upstream-error.js';
import type { ToolDeps } from '../types.js';
import { JsonUpstream } from './json-upstream.js';
import { referenceFileFailure } from './reference-file.js';

/** IANA updates the bootstrap file when a registry moves, rarely. */
const BOOTSTRAP_TTL_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 86_400_000;

export interface Registration {
  registrar: string | null;
  created: string | null;
  expires: string | null;
  updated: string | null;
  age_days: number | null;
  status: string[];
  nameservers: string[];
  dnssec: boolean | null;
}

interface RdapEntity {
  roles?: string[];
  handle?: string;
  vcardArray?: [string, Array<[string, unknown, string, unknown]>];
  entities?: RdapEntity[];
}

interface RdapDomain {
  objectClassName?: string;
  status?: string[];
  events?: Array<{ eventAction?: string; eventDate?: string }>;
  entities?: RdapEntity[];
  nameservers?: Array<{ ldhName?: string }>;
  secureDNS?: { delegationSigned?: boolean };
}

const fnOf = (e: RdapEntity) => {
  const fn = e.vcardArray?.[1]?.find((p) => p[0] === 'fn');
  return typeof fn?.[3] === 'string' && fn[3] ? fn[3] : null;
};

export function registrationOf(rdap: RdapDomain, now = Date.now()): Registration {
  const event = (action: string) => rdap.events?.find((e) => e.eventAction === action)?.eventDate ?? null;
  const registrar = rdap.entities?.find((e) => e.roles?.includes('registrar'));
  const created = event('registration');
  return {
    registrar: registrar ? (fnOf(registrar) ?? registrar.handle ?? null) : null,
    created,
    expires: event('expiration'),
    updated: event('last changed'),
    age_days:
      created && !Number.isNaN(Date.parse(created)) ? Math.floor((now - Date.parse(created)) / DAY_MS) : null,
    status: Array.isArray(rdap.status) ? rdap.status : [],
    nameservers: (rdap.nameservers ?? []).map((n) => String(n.ldhName ?? '').toLowerCase()).filter(Boolean),
    dnssec: typeof rdap.secureDNS?.delegationSigned === 'boolean' ? rdap.secureDNS.delegationSigned : null,
  };
}

export function rdapClient(deps: ToolDeps) {
  const bootstrapUrl = deps.config.tools.baseUrls.rdapBootstrap;
  const iana = new JsonUpstream('iana rdap bootstrap', bootstrapUrl, deps.http);
  const servers = new JsonUpstream('rdap', '', deps.http);
  let bootstrap: { at: number; map: Promise<Map<string, string>> } | undefined;

  // Shared by the calls waiting on it, so not cut short by one of them hanging up (the tool timeout still holds).
  const serverMap = () => {
    if (!bootstrap || Date.now() - bootstrap.at > BOOTSTRAP_TTL_MS) {
      const map = iana
        .get<{ services?: unknown }>('', undefined, new CallAbort())
        .then((file) => {
          if (!Array.isArray(file?.services)) {
            throw new UpstreamError('upstream', 'the iana rdap bootstrap file has no services', {
              beforeFirstByte: true,
            });
          }
          const out = new Map<string, string>();
          for (const [tlds, urls] of file.services as Array<[string[], string[]]>) {
            const url = urls.find((u) => u.startsWith('https://')) ?? urls[0];
            if (url) for (const tld of tlds) out.set(tld.toLowerCase(), url.endsWith('/') ? url : `${url}/`);
          }
          return out;
        })
        .catch((err: unknown) => {
          throw referenceFileFailure('the RDAP bootstrap file (RDAP_BOOTSTRAP_URL)', err);
        });
      bootstrap = { at: Date.now(), map };
      map.catch(() => {
        if (bootstrap?.map === map) bootstrap = undefined;
      });
    }
    return bootstrap.map;
  };

  return {
    /** The registration of a registrable domain; null when the registry does not know it (not registered). */
    async lookup(domain: string, signal: CallSignal): Promise<Registration | null> {
      const tld = domain.slice(domain.lastIndexOf('.') + 1);
      const server = (await serverMap()).get(tld);
      if (!server) throw new UpstreamError('upstream', `no RDAP server is registered for .${tld}`);
      try {
        const answer = await servers.request<RdapDomain>(
          {
            path: `${server}domain/${encodeURIComponent(domain)}`,
            headers: { accept: 'application/rdap+json, application/json' },
          },
          signal,
        );
        return registrationOf(answer);
      } catch (err) {
        if (err instanceof UpstreamError && err.options.status === 404) return null;
        throw err;
      }
    },
  };
}
