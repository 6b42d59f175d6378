/**
 * Settings of the dashboard (/dashboard) and of rupiah top-ups by QRIS: the payment gateway (Midtrans), the fixed
 * exchange rate, amount limits, order expiry and session lifetime. Top-ups are on when MIDTRANS_SERVER_KEY is set.
 */
import { z } from 'zod';
import { int, type SettingsArea } from './setting.js';

export const dashboardEnvShape = {
  MIDTRANS_SERVER_KEY: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v)),
  MIDTRANS_BASE_URL: z.url().default('https://api.midtrans.com'),
  TOPUP_IDR_PER_USD: int(1, 1_000_000).default(16_000),
  TOPUP_MIN_IDR: int(1).default(10_000),
  TOPUP_MAX_IDR: int(1, 1_000_000_000).default(10_000_000),
  TOPUP_EXPIRY_MINUTES: int(1, 24 * 60).default(15),
  DASHBOARD_SESSION_HOURS: int(1, 24 * 90).default(24 * 7),
};

export interface TopupConfig {
  /** Rupiah per US dollar, fixed into each order when it is created (both amounts are stored). */
  idrPerUsd: number;
  minIdr: number;
  maxIdr: number;
  expiryMinutes: number;
  /** The gateway that takes the payment; null = top-ups are off. */
  midtrans: { baseUrl: string; serverKey: string } | null;
}

export interface DashboardConfig {
  sessionHours: number;
  topup: TopupConfig;
}

type DashboardEnv = { [K in keyof typeof dashboardEnvShape]: z.infer<(typeof dashboardEnvShape)[K]> };

export function parseDashboard(e: DashboardEnv, problems: string[]): DashboardConfig {
  if (e.TOPUP_MIN_IDR > e.TOPUP_MAX_IDR) problems.push('TOPUP_MIN_IDR: must not exceed TOPUP_MAX_IDR');
  return {
    sessionHours: e.DASHBOARD_SESSION_HOURS,
    topup: {
      idrPerUsd: e.TOPUP_IDR_PER_USD,
      minIdr: e.TOPUP_MIN_IDR,
      maxIdr: e.TOPUP_MAX_IDR,
      expiryMinutes: e.TOPUP_EXPIRY_MINUTES,
      midtrans: e.MIDTRANS_SERVER_KEY
        ? { baseUrl: e.MIDTRANS_BASE_URL.replace(/\/+$/, ''), serverKey: e.MIDTRANS_SERVER_KEY }
        : null,
    },
  };
}

export const dashboardSettings: SettingsArea = {
  name: 'dashboard',
  shape: dashboardEnvShape,
  rows: [
    {
      vars: ['MIDTRANS_SERVER_KEY'],
      default: '(top-ups off)',
      meaning: 'The Midtrans server key (sandbox keys start `SB-Mid-server-`). A secret: never logged.',
    },
    {
      vars: ['MIDTRANS_BASE_URL'],
      default: '`https://api.midtrans.com`',
      meaning: 'Core API base; `https://api.sandbox.midtrans.com` for the sandbox.',
    },
    {
      vars: ['TOPUP_IDR_PER_USD'],
      default: '`16000`',
      meaning: 'Whole rupiah per US dollar, fixed into each order at creation.',
    },
    {
      vars: ['TOPUP_MIN_IDR', 'TOPUP_MAX_IDR'],
      default: '`10000`, `10000000`',
      meaning: 'The smallest and largest top-up in rupiah; others are refused (400) before any charge.',
    },
    {
      vars: ['TOPUP_EXPIRY_MINUTES'],
      default: '`15`',
      meaning: "How long an order's QR code can be paid (sent to Midtrans as `custom_expiry`).",
    },
    { vars: ['DASHBOARD_SESSION_HOURS'], default: '`168`', meaning: 'How long a dashboard sign-in lasts.' },
  ],
};
