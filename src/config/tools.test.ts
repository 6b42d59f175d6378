// The paid data tools' settings: public defaults, overrides, and each bad setting named.
import { describe, expect, it } from 'vitest';
import { ConfigError } from './error.js';
import { loadConfig } from './load.js';
import { DEFAULT_RPC_URLS } from './tools.js';

describe('tool settings', () => {
  it('default to the public upstreams and nodes', () => {
    const { tools } = loadConfig({});
    expect(tools.baseUrls.frankfurter).toBe('https://api.frankfurter.dev/v1');
    expect(tools.rpcUrls).toEqual(DEFAULT_RPC_URLS);
    expect(tools.search.order).toEqual(['brave', 'tavily', 'exa', 'searxng']);
    expect(tools.secUserAgent).toBeUndefined();
    expect(tools.rpcAllowSendRawTransaction).toBe(false);
  });

  it('read overrides: base URLs without a trailing slash, RPC nodes over the defaults, the search order', () => {
    const { tools } = loadConfig({
      FRANKFURTER_BASE_URL: 'http://fx.internal:8080/v1/',
      RPC_URLS: 'Ethereum=https://eth.example/rpc, gnosis=https://rpc.gnosischain.com',
      SEARCH_PROVIDERS: 'searxng,brave',
    });
    expect(tools.baseUrls.frankfurter).toBe('http://fx.internal:8080/v1');
    expect(tools.rpcUrls.ethereum).toBe('https://eth.example/rpc');
    expect(tools.rpcUrls.gnosis).toBe('https://rpc.gnosischain.com');
    expect(tools.rpcUrls.base).toBe(DEFAULT_RPC_URLS.base);
    expect(tools.search.order).toEqual(['searxng', 'brave']);
  });

  it('name each bad setting', () => {
    let err: unknown;
    try {
      loadConfig({ RPC_URLS: 'ethereum', SEARCH_PROVIDERS: 'google', TOOL_TIMEOUT_MS: '5' });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect(String((err as Error).message)).toMatch(/TOOL_TIMEOUT_MS/);
  });

  it('name bad RPC nodes and search providers once the values parse', () => {
    expect(() => loadConfig({ RPC_URLS: 'ethereum=ftp://x' })).toThrow(/RPC_URLS: "ethereum=ftp:\/\/x"/);
    expect(() => loadConfig({ SEARCH_PROVIDERS: 'brave,google' })).toThrow(/SEARCH_PROVIDERS: "google"/);
  });
});
