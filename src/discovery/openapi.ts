/** The OpenAPI 3.1 document, generated from the route schemas registered on the app. */
import type { OpenAPIHono } from '@hono/zod-openapi';
import type { AppEnv } from '../http/env.js';

export const API_VERSION = '1';

export function buildOpenApi(app: OpenAPIHono<AppEnv>, baseUrl: string) {
  return app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: {
      title: 'kasir',
      version: API_VERSION,
      description:
        'Pay-per-call inference and data gateway. Paid routes answer 402 with the price and every payable rail, ' +
        'or charge a prepaid balance with `Authorization: Bearer <key>`. Inputs are validated before any charge; ' +
        'a call is charged only on success, and the charge equals the quote. ' +
        `Keys are managed and the balance topped up (in rupiah) at ${baseUrl}/dashboard.`,
    },
    externalDocs: {
      url: `${baseUrl}/dashboard`,
      description: 'Dashboard: API keys, balance, usage and rupiah top-ups by QRIS',
    },
    servers: [{ url: baseUrl }],
  });
}
