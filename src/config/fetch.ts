/**
 * Settings of the safe fetcher (src/fetch): what kasir may download on a caller's behalf, how much and for how
 * long, and the `host:port` form FETCH_ALLOWED_HOSTS is written and compared in. FETCH_ALLOWED_HOSTS is dangerous:
 * it lets callers make kasir reach the named private hosts.
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { int, type SettingsArea } from './setting.js';

export const fetchEnvShape = {
  FETCH_ALLOWED_HOSTS: z.string().default(''),
  FETCH_CA_FILE: z.string().default(''),
  FETCH_TIMEOUT_MS: int(100).default(30_000),
  FETCH_MAX_REDIRECTS: int(0, 20).default(5),
  FETCH_MAX_BYTES: int(1).default(40 * 1024 * 1024),
  FETCH_TRANSCRIPTION_MAX_BYTES: int(1).default(25 * 1024 * 1024),
  MEDIA_RESULT_MAX_BYTES: int(1).default(1024 * 1024 * 1024),
};

export interface FetchConfig {
  /** `host:port` pairs exempt from the private-address rule. Empty by default; dangerous (see the README). */
  allowedHosts: ReadonlySet<string>;
  /** One fetch, every redirect and the whole body included, must finish within this. */
  timeoutMs: number;
  maxRedirects: number;
  /** The most a caller's file input (image, video, audio URL) may weigh. */
  maxBytes: number;
  /** The most an audio file for speech-to-text may weigh. */
  transcriptionMaxBytes: number;
  /** The most a provider's result file (a long video) may weigh when it is re-hosted. */
  resultMaxBytes: number;
  /** PEM certificates (FETCH_CA_FILE) trusted besides the bundled roots, by the fetcher and the screenshot browser. */
  extraCa: string[];
}

/** A URL's hostname as a bare host: IPv6 literals lose their brackets, names their trailing dot. */
export function bareHost(hostname: string): string {
  const host = hostname.toLowerCase();
  if (host.startsWith('[') && host.endsWith(']')) return host.slice(1, -1);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** `host:port` as FETCH_ALLOWED_HOSTS writes it (IPv6 hosts in brackets). */
export function hostPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Parses FETCH_ALLOWED_HOSTS (`host:port,host:port`, IPv6 hosts in brackets); bad entries are named in `problems`. */
export function parseAllowedHosts(raw: string, problems: string[]): Set<string> {
  const hosts = new Set<string>();
  for (const part of raw.split(',').map((p) => p.trim())) {
    if (!part) continue;
    const m = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i.exec(part);
    const port = Number(m?.[2]);
    if (!m?.[1] || port < 1 || port > 65535) {
      problems.push(`FETCH_ALLOWED_HOSTS: "${part}" is not host:port`);
      continue;
    }
    hosts.add(hostPort(bareHost(m[1]), port));
  }
  return hosts;
}

/** The certificates of a PEM file, each as its own PEM block; a missing or empty file is a named problem. */
function readCaFile(path: string, problems: string[]): string[] {
  if (!path) return [];
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    problems.push(`FETCH_CA_FILE: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    return [];
  }
  const certs = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0) problems.push(`FETCH_CA_FILE: ${path} holds no PEM certificate`);
  return certs;
}

export function parseFetch(e: Record<string, unknown>, problems: string[]): FetchConfig {
  return {
    allowedHosts: parseAllowedHosts(String(e.FETCH_ALLOWED_HOSTS ?? ''), problems),
    timeoutMs: Number(e.FETCH_TIMEOUT_MS),
    maxRedirects: Number(e.FETCH_MAX_REDIRECTS),
    maxBytes: Number(e.FETCH_MAX_BYTES),
    transcriptionMaxBytes: Number(e.FETCH_TRANSCRIPTION_MAX_BYTES),
    resultMaxBytes: Number(e.MEDIA_RESULT_MAX_BYTES),
    extraCa: readCaFile(String(e.FETCH_CA_FILE ?? ''), problems),
  };
}

export const fetchSettings: SettingsArea = {
  name: 'fetch',
  shape: fetchEnvShape,
  rows: [
    {
      vars: ['FETCH_ALLOWED_HOSTS'],
      default: '(none)',
      meaning:
        "**Dangerous.** Comma-separated `host:port` pairs exempt from the safe fetcher's private-address rule (see *Media models*): callers can then make kasir reach those hosts. For tests and intranet file servers only.",
    },
    {
      vars: ['FETCH_TIMEOUT_MS'],
      default: '`30000`',
      meaning: "One fetch of a caller's file (every redirect and the whole body) must finish within this.",
    },
    {
      vars: ['FETCH_MAX_REDIRECTS'],
      default: '`5`',
      meaning: 'Redirects one fetch follows, each target checked anew.',
    },
    {
      vars: ['FETCH_MAX_BYTES'],
      default: '`41943040`',
      meaning: 'Largest file input fetched or read for an image or video model (40 MB).',
    },
    {
      vars: ['FETCH_TRANSCRIPTION_MAX_BYTES'],
      default: '`26214400`',
      meaning: 'Largest audio file for speech-to-text (25 MB).',
    },
    {
      vars: ['MEDIA_RESULT_MAX_BYTES'],
      default: '`1073741824`',
      meaning: 'Largest result file re-hosted from a provider (1 GB; streamed, never buffered).',
    },
    {
      vars: ['FETCH_CA_FILE'],
      default: '—',
      meaning:
        "PEM file of certificates trusted, besides the bundled roots, for the URLs kasir fetches (an intranet's own CA); see *Renderers*.",
    },
  ],
};
