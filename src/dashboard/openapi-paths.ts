/**
 * The dashboard's pages in the OpenAPI document (tag "dashboard"), so /openapi.json and /skill.md list them like
 * every other route. They answer HTML forms for people, not JSON for programs; only the order status is JSON.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { z } from '@hono/zod-openapi';
import type { AppEnv } from '../http/env.js';

const PAGES: Array<[method: 'get' | 'post', path: string, summary: string, type?: string]> = [
  ['get', '/dashboard', 'Dashboard: sign in with a key, or the balance of the signed-in account'],
  ['post', '/dashboard/login', 'Sign in with an API key (form: key)'],
  ['post', '/dashboard/logout', 'Sign out'],
  ['get', '/dashboard/keys', 'The account’s keys'],
  ['post', '/dashboard/keys', 'Create a key (shown once)'],
  ['post', '/dashboard/keys/{id}', 'Name a key, set its spend cap and rate limit'],
  ['post', '/dashboard/keys/{id}/revoke', 'Revoke a key'],
  ['get', '/dashboard/usage', 'Usage: calls, paging, spend charts'],
  ['get', '/dashboard/usage.csv', 'Usage as CSV', 'text/csv'],
  ['get', '/dashboard/topup', 'Top up in rupiah by QRIS (no signup), and top-up history'],
  ['post', '/dashboard/topup', 'Start a QRIS top-up (form: amount_idr)'],
  ['get', '/dashboard/topup/{id}', 'A top-up order: its QR code until paid, then its key once'],
  ['get', '/dashboard/topup/{id}/status', 'A top-up order’s status', 'application/json'],
  ['get', '/dashboard/topup/{id}/qr.svg', 'A top-up order’s QRIS code', 'image/svg+xml'],
  ['post', '/dashboard/topup/{id}/claim', 'Show the key of a paid top-up, once'],
  ['get', '/dashboard/siwe/message', 'A Sign-In with Ethereum message to sign', 'application/json'],
  ['post', '/dashboard/siwe', 'Sign in with a signed Sign-In with Ethereum message'],
  [
    'get',
    '/dashboard/assets/{name}',
    'The dashboard’s script, stylesheet and chart library',
    'text/javascript',
  ],
];

export function describeDashboard(app: OpenAPIHono<AppEnv>): void {
  for (const [method, path, summary, type = 'text/html'] of PAGES) {
    const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
    app.openAPIRegistry.registerPath({
      method,
      path,
      tags: ['dashboard'],
      summary,
      ...(params.length
        ? { request: { params: z.object(Object.fromEntries(params.map((p) => [p, z.string()]))) } }
        : {}),
      responses: { 200: { description: summary, content: { [type]: { schema: z.unknown() } } } },
    });
  }
}

/** The gateway's notification endpoint (tag "topup"). */
export function describeNotification(app: OpenAPIHono<AppEnv>, path: string, gateway: string): void {
  app.openAPIRegistry.registerPath({
    method: 'post',
    path,
    tags: ['topup'],
    summary: `Payment notification from ${gateway} (signature-verified; credits a top-up once)`,
    responses: {
      200: {
        description: 'Applied, or ignored with the reason',
        content: { 'application/json': { schema: z.unknown() } },
      },
    },
  });
}
