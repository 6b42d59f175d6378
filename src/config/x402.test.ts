// KASIR_PAY_TO: the one payout setting that turns on x402 on Base and the MPP Tempo charge, with public defaults
// that each chain's own settings override.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './load.js';

const ADDRESS = '0x1111111111111111111111111111111111111111';
const OTHER = '0x2222222222222222222222222222222222222222';

describe('KASIR_PAY_TO', () => {
  it('is off by default: no chain and no Tempo charge', () => {
    const c = loadConfig({});
    expect(c.x402.chains).toEqual([]);
    expect(c.mpp.tempo).toBeUndefined();
  });

  it('turns on x402 on Base (USDC, public RPC and facilitator) and MPP on Tempo with one address', () => {
    const c = loadConfig({ KASIR_PAY_TO: ADDRESS });
    expect(c.x402.chains).toEqual([
      {
        id: 'base',
        family: 'x402',
        kind: 'evm',
        network: 'eip155:8453',
        payTo: ADDRESS,
        assets: ['0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'],
        rpcUrl: 'https://mainnet.base.org',
        signerKey: undefined,
        facilitatorUrl: 'https://facilitator.payai.network',
      },
    ]);
    expect(c.mpp.tempo).toMatchObject({ recipient: ADDRESS, rpcUrl: 'https://rpc.tempo.xyz', chainId: 4217 });
  });

  it('leaves every default to the specific settings that name it', () => {
    const key = `0x${'ab'.repeat(32)}`;
    const c = loadConfig({
      KASIR_PAY_TO: ADDRESS,
      X402_BASE_PAY_TO: OTHER,
      X402_BASE_NETWORK: 'eip155:84532',
      X402_BASE_PRIVATE_KEY: key,
      MPP_TEMPO_RECIPIENT: OTHER,
      MPP_TEMPO_RPC_URL: 'http://127.0.0.1:9545',
    });
    const [base] = c.x402.chains;
    expect(base).toMatchObject({ payTo: OTHER, network: 'eip155:84532', signerKey: key });
    // A signer settles in-process: no facilitator is put in front of it.
    expect(base?.facilitatorUrl).toBeUndefined();
    expect(c.mpp.tempo).toMatchObject({ recipient: OTHER, rpcUrl: 'http://127.0.0.1:9545' });
    expect(
      loadConfig({ KASIR_PAY_TO: ADDRESS, X402_BASE_NETWORK: 'eip155:84532' }).x402.chains[0],
    ).toMatchObject({
      facilitatorUrl: 'https://x402.org/facilitator',
    });
  });

  it('names KASIR_PAY_TO when the address is not one', () => {
    expect(() => loadConfig({ KASIR_PAY_TO: 'nope' })).toThrow(/KASIR_PAY_TO: not a evm address/);
    expect(() => loadConfig({ KASIR_PAY_TO: 'nope' })).toThrow(/KASIR_PAY_TO: must be a 0x address/);
  });
});
