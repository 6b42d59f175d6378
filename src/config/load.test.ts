// The configuration entry point: defaults, overrides, the JSON file, and every bad setting named at once.
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './error.js';
import { loadConfig } from './load.js';
import { onBoundPort } from './server.js';

describe('loadConfig', () => {
  it('gives a working embedded service by default', () => {
    const c = loadConfig({});
    expect(c.host).toBe('127.0.0.1');
    expect(c.port).toBe(8402);
    expect(c.dataDir).toBe('./data');
    expect(c.rateLimitPerMinute).toBe(120);
    expect(c.publicBaseUrl).toBe('http://127.0.0.1:8402');
    expect(c.database).toEqual({ kind: 'sqlite', file: path.join('data', 'kasir.db') });
    expect(c.media).toEqual({ kind: 'disk', dir: path.join('data', 'media') });
    expect(c.mediaMaxBytes).toBe(40 * 1024 * 1024);
    expect(c.redisUrl).toBeUndefined();
    expect(c.trustProxy).toBe(false);
  });

  it('names the port the system chose when asked for port 0, unless PUBLIC_BASE_URL is set', () => {
    const any = loadConfig({ HOST: '0.0.0.0', PORT: '0' });
    expect(any.publicBaseUrl).toBe('http://localhost:0');
    expect(onBoundPort(any, 41234)).toMatchObject({ port: 41234, publicBaseUrl: 'http://localhost:41234' });
    const given = loadConfig({ PORT: '0', PUBLIC_BASE_URL: 'https://pay.example.com' });
    expect(onBoundPort(given, 41234)).toBe(given);
    const fixed = loadConfig({ PORT: '9000' });
    expect(onBoundPort(fixed, 9000)).toBe(fixed);
  });

  it('derives the public URL from host and port, and honours PUBLIC_BASE_URL', () => {
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://pay.example.com/' }).publicBaseUrl).toBe(
      'https://pay.example.com',
    );
  });

  it('names every bad setting at once', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        RATE_LIMIT_PER_MINUTE: '-1',
        DATABASE_URL: 'mysql://x',
        TRUST_PROXY: 'maybe',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const message = (error as Error).message;
    expect(message).toContain('PORT');
    expect(message).toContain('RATE_LIMIT_PER_MINUTE');
    expect(message).toContain('TRUST_PROXY');
  });

  it('names bad settings of different areas together: a refused value and a broken rule alike', () => {
    let error: unknown;
    try {
      loadConfig({
        PORT: 'eighty',
        RPC_URLS: 'ethereum',
        SELF_HOSTED_PRICES: '{"llama3.2": "cheap"}',
        MPP_TEMPO_RECIPIENT: 'nope',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT: Invalid input: expected number, received NaN',
      'MPP_TEMPO_RECIPIENT: must be a 0x address',
      'RPC_URLS: "ethereum" is not <chain>=<http(s) URL>',
      'SELF_HOSTED_PRICES: "llama3.2" is not "<input USD>:<output USD>" per million tokens (e.g. "0.10:0.40")',
    ]);
  });

  it('rejects an unknown database scheme and a short admin token', () => {
    expect(() => loadConfig({ DATABASE_URL: 'mysql://x' })).toThrow(/DATABASE_URL/);
    expect(() => loadConfig({ ADMIN_TOKEN: 'short' })).toThrow(/ADMIN_TOKEN/);
  });

  it('selects PostgreSQL, Redis and S3 by configuration only', () => {
    const c = loadConfig({
      DATABASE_URL: 'postgres://u@db/kasir',
      REDIS_URL: 'redis://cache:6379',
      S3_BUCKET: 'media',
      S3_ENDPOINT: 'http://minio:9000',
      S3_FORCE_PATH_STYLE: 'true',
    });
    expect(c.database).toEqual({ kind: 'postgres', url: 'postgres://u@db/kasir' });
    expect(c.redisUrl).toBe('redis://cache:6379');
    expect(c.media).toMatchObject({
      kind: 's3',
      bucket: 'media',
      endpoint: 'http://minio:9000',
      forcePathStyle: true,
    });
  });

  it('reads an optional JSON file, with the environment winning', () => {
    const file = path.join(tmpdir(), `kasir-config-${process.pid}.json`);
    writeFileSync(file, JSON.stringify({ PORT: 9100, RATE_LIMIT_PER_MINUTE: 5 }));
    const c = loadConfig({ KASIR_CONFIG_FILE: file, PORT: '9200' });
    expect(c.port).toBe(9200);
    expect(c.rateLimitPerMinute).toBe(5);
    expect(() => loadConfig({ KASIR_CONFIG_FILE: `${file}.missing` })).toThrow(/KASIR_CONFIG_FILE/);
  });

  it('parses provider margins and provider settings', () => {
    const c = loadConfig({
      PROVIDER_MARGIN_PERCENT: '20,fal=35',
      OPENAI_API_KEY: 'sk-x',
      OPENAI_BASE_URL: 'http://localhost:1/v1/',
    });
    expect(c.providerMarginPercent).toEqual({ '*': 20, fal: 35 });
    expect(c.providers.openai).toEqual({ apiKey: 'sk-x', baseUrl: 'http://localhost:1/v1' });
    expect(c.providers.anthropic.apiKey).toBeUndefined();
    expect(() => loadConfig({ PROVIDER_MARGIN_PERCENT: 'fal=lots' })).toThrow(/PROVIDER_MARGIN_PERCENT/);
  });
});
