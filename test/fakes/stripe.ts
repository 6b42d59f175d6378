// A local server speaking the parts of Stripe's API the card method uses: POST /v1/payment_intents (form-encoded,
// confirmed at once with a shared payment token; `capture_method=manual` only authorizes: `requires_capture`),
// POST /v1/payment_intents/{id}/capture and /cancel (only from `requires_capture`, as Stripe allows for an
// authorized card) and POST /v1/refunds, with Stripe's bearer auth, error objects and idempotency (a repeated
// Idempotency-Key returns the first answer with `Idempotent-Replayed: true`).
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listen } from './http.js';

export interface FakePaymentIntent {
  id: string;
  object: 'payment_intent';
  amount: number;
  currency: string;
  status: string;
  capture_method: 'automatic' | 'manual';
  amount_received: number;
  metadata: Record<string, string>;
  shared_payment_granted_token: string;
}

export interface FakeStripe {
  url: string;
  secretKey: string;
  intents: FakePaymentIntent[];
  refunds: Array<{ id: string; payment_intent: string; amount: number }>;
  close(): Promise<void>;
}

/** Tokens that Stripe declines, as the test cards do. */
export const DECLINED_TOKEN = 'spt_test_declined';

const id = (prefix: string) => `${prefix}_${randomBytes(12).toString('hex')}`;

/** Stripe's form encoding: `a[b]=c` nests, repeated keys are not used by these calls. */
function parseForm(body: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.split(/\[|\]\[|\]/).filter(Boolean);
    let node = out;
    for (const part of path.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[path.at(-1) as string] = value;
  }
  return out;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req'), ...headers });
  res.end(JSON.stringify(body));
}

const stripeError = (type: string, message: string, code?: string) => ({
  error: { type, message, ...(code ? { code } : {}) },
});

export async function startFakeStripe(): Promise<FakeStripe> {
  const secretKey = `sk_test_${randomBytes(12).toString('hex')}`;
  const intents: FakePaymentIntent[] = [];
  const refunds: FakeStripe['refunds'] = [];
  const answered = new Map<string, { status: number; body: unknown }>();

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return send(res, 401, stripeError('invalid_request_error', 'Invalid API Key provided'));
    }
    const key = req.headers['idempotency-key'];
    const replayKey = typeof key === 'string' ? `${req.url} ${key}` : null;
    const first = replayKey ? answered.get(replayKey) : undefined;
    if (first) return send(res, first.status, first.body, { 'idempotent-replayed': 'true' });
    const answer = (status: number, body: unknown) => {
      if (replayKey) answered.set(replayKey, { status, body });
      send(res, status, body);
    };
    const form = parseForm(raw);
    if (req.method === 'POST' && req.url === '/v1/payment_intents') {
      const amount = Number(form.amount);
      if (!Number.isInteger(amount) || amount < 1) {
        return answer(
          400,
          stripeError('invalid_request_error', 'Invalid integer: amount', 'parameter_invalid_integer'),
        );
      }
      const token = String(form.shared_payment_granted_token ?? '');
      if (!token.startsWith('spt_')) {
        return answer(
          400,
          stripeError('invalid_request_error', 'No such shared payment token', 'resource_missing'),
        );
      }
      if (token === DECLINED_TOKEN) {
        return answer(402, stripeError('card_error', 'Your card was declined.', 'card_declined'));
      }
      const manual = form.capture_method === 'manual';
      const confirmed = form.confirm === 'true';
      const intent: FakePaymentIntent = {
        id: id('pi'),
        object: 'payment_intent',
        amount,
        currency: String(form.currency),
        status: !confirmed ? 'requires_confirmation' : manual ? 'requires_capture' : 'succeeded',
        capture_method: manual ? 'manual' : 'automatic',
        amount_received: confirmed && !manual ? amount : 0,
        metadata: (form.metadata as Record<string, string>) ?? {},
        shared_payment_granted_token: token,
      };
      intents.push(intent);
      return answer(200, intent);
    }
    const action = /^\/v1\/payment_intents\/([^/]+)\/(capture|cancel)$/.exec(req.url ?? '');
    if (req.method === 'POST' && action) {
      const intent = intents.find((i) => i.id === action[1]);
      if (!intent)
        return answer(
          404,
          stripeError('invalid_request_error', 'No such payment_intent', 'resource_missing'),
        );
      if (intent.status !== 'requires_capture') {
        return answer(
          400,
          stripeError(
            'invalid_request_error',
            `This PaymentIntent could not be ${action[2] === 'capture' ? 'captured' : 'canceled'} because it has a status of ${intent.status}.`,
            'payment_intent_unexpected_state',
          ),
        );
      }
      if (action[2] === 'capture') {
        intent.status = 'succeeded';
        intent.amount_received = intent.amount;
      } else {
        intent.status = 'canceled';
      }
      return answer(200, intent);
    }
    if (req.method === 'POST' && req.url === '/v1/refunds') {
      const intent = intents.find((i) => i.id === form.payment_intent);
      if (!intent)
        return answer(
          404,
          stripeError('invalid_request_error', 'No such payment_intent', 'resource_missing'),
        );
      const refund = {
        id: id('re'),
        object: 'refund',
        payment_intent: intent.id,
        amount: intent.amount,
        status: 'succeeded',
      };
      refunds.push(refund);
      return answer(200, refund);
    }
    send(
      res,
      404,
      stripeError('invalid_request_error', `Unrecognized request URL (${req.method}: ${req.url})`),
    );
  };

  const server = createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      raw += chunk;
    });
    req.on('end', () => handle(req, res, raw));
  });
  return {
    url: await listen(server),
    secretKey,
    intents,
    refunds,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
