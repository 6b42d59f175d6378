/** The configured top-up gateway (Midtrans when MIDTRANS_SERVER_KEY is set), or null when top-ups are off. */
import type { Config } from '../config/load.js';
import type { PaymentGateway } from './gateway.js';
import { createMidtrans } from './midtrans.js';

export function openTopupGateway(config: Config): PaymentGateway | null {
  const m = config.dashboard.topup.midtrans;
  return m ? createMidtrans({ ...m, timeoutMs: Math.min(config.upstreamTimeoutMs, 30_000) }) : null;
}
