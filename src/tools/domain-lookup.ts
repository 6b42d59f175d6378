/**
 * tools/domain-lookup: a domain's registration (RDAP), its DNS records and its mail policy (SPF, DMARC). A section
 * whose upstream fails is null and named in `degraded` (the rest is still answered, and charged); when every
 * section fails the call fails, uncharged.
 */
import { isIP } from 'node:net';
import { parse } from 'tldts';
import { ApiError, invalidInput } from '../http/errors.js';
import { UpstreamError } from '../http/upstream-error.js';
import type { ToolFactory } from './types.js';
import { dnsClient, RECORD_TYPES, type RecordType, type RecordValue } from './upstreams/dns.js';
import { rdapClient } from './upstreams/rdap.js';

/** Registrations change rarely and DNS answers carry TTLs of minutes to hours. */
const CACHE_TTL_MS = 15 * 60 * 1000;
const DEFAULT_RECORDS: RecordType[] = ['A', 'AAAA', 'MX', 'NS', 'TXT'];

/** The hostname of a domain or URL, lower case, as ASCII (IDNA), or a 400 naming `domain`. */
function hostnameOf(raw: string): { host: string; registrable: string } {
  const text = raw.trim();
  let host = '';
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`).hostname;
  } catch {
    /* reported below */
  }
  host = host.replace(/\.$/, '').toLowerCase();
  const parsed = parse(host);
  if (!host || isIP(host.replace(/^\[|\]$/g, '')) || !parsed.domain || !parsed.isIcann) {
    throw invalidInput([{ field: 'domain', message: `"${raw}" is not a domain name under a public suffix` }]);
  }
  return { host, registrable: parsed.domain };
}

/** The record types asked for, each once, in a fixed order. */
const recordsOf = (input: Record<string, unknown>): RecordType[] =>
  Array.isArray(input.records)
    ? RECORD_TYPES.filter((t) => (input.records as unknown[]).includes(t))
    : DEFAULT_RECORDS;

const txtOf = (values: RecordValue[]) => values.filter((v): v is string => typeof v === 'string');

export const domainLookup: ToolFactory = (deps) => {
  const rdap = rdapClient(deps);
  const dns = dnsClient(deps.config.tools.dnsServers, deps.config.tools.timeoutMs);
  return {
    cacheTtlMs: CACHE_TTL_MS,
    cacheKey: (input) => [hostnameOf(String(input.domain)).host, recordsOf(input)],
    async run(input, call) {
      const { host, registrable } = hostnameOf(String(input.domain));
      const types = recordsOf(input);
      const [registration, records, email] = await Promise.allSettled([
        rdap.lookup(registrable, call.signal),
        (async () => {
          const answers = await Promise.all(types.map((t) => dns.records(host, t)));
          return {
            map: Object.fromEntries(types.map((t, i) => [t, answers[i]?.values ?? []])),
            nxdomain: answers.every((a) => a.nxdomain),
          };
        })(),
        (async () => {
          const [txt, dmarc, mx] = await Promise.all([
            dns.records(registrable, 'TXT'),
            dns.records(`_dmarc.${registrable}`, 'TXT'),
            dns.records(registrable, 'MX'),
          ]);
          const spf = txtOf(txt.values).find((t) => /^v=spf1(\s|$)/i.test(t)) ?? null;
          const dmarcRecord = txtOf(dmarc.values).find((t) => /^v=DMARC1\s*;/i.test(t)) ?? null;
          const policy = dmarcRecord?.match(/(?:^|;)\s*p\s*=\s*([a-z]+)/i)?.[1]?.toLowerCase() ?? null;
          return { spf, dmarc: dmarcRecord, dmarc_policy: policy, mx_count: mx.values.length };
        })(),
      ]);
      const failed = [registration, records, email].filter((s) => s.status === 'rejected');
      if (failed.length === 3) {
        const why = (registration as PromiseRejectedResult).reason;
        throw why instanceof UpstreamError || why instanceof ApiError
          ? why
          : new UpstreamError('upstream', `RDAP and DNS both failed for ${host}`, { beforeFirstByte: true });
      }
      const degraded: string[] = [];
      for (const [name, s] of [
        ['registration', registration],
        ['dns', records],
        ['email', email],
      ] as const) {
        if (s.status === 'rejected') {
          degraded.push(name);
          deps.log.warn({ section: name, err: String(s.reason) }, 'domain-lookup section failed');
        }
      }
      const reg = registration.status === 'fulfilled' ? registration.value : undefined;
      const dnsAnswer = records.status === 'fulfilled' ? records.value : undefined;
      // RDAP decides; without it, a name that exists in DNS is registered.
      const registered = reg !== undefined ? reg !== null : dnsAnswer ? !dnsAnswer.nxdomain : false;
      return {
        domain: host,
        registered,
        registration: reg ?? null,
        dns: dnsAnswer?.map ?? null,
        email: email.status === 'fulfilled' ? email.value : null,
        degraded,
      };
    },
  };
};
