/** The one error shape of the API: stable codes, mapped to HTTP status in one place. */

export const ERROR_STATUS = {
  invalid_json: 400,
  invalid_input: 400,
  unauthorized: 401,
  payment_required: 402,
  insufficient_balance: 402,
  spend_cap_exceeded: 402,
  price_above_max: 402,
  /** A wallet payment refused: bad signature, wrong amount, recipient, network or asset, expired, unfunded. */
  payment_invalid: 402,
  /** A wallet payment already spent on an earlier call. */
  payment_replayed: 402,
  /** A wallet payment whose call is running right now. */
  payment_in_progress: 402,
  /** A wallet payment that verified but could not be settled after the call: its result is withheld. */
  payment_failed: 402,
  /** A payment credential whose challenge has expired. */
  payment_expired: 402,
  /** A payment credential that cannot be read. */
  payment_malformed: 402,
  /** A payment credential whose challenge this server did not issue, or issued for another call. */
  payment_challenge_invalid: 402,
  /** A payment the credential's funds or credit do not cover. */
  payment_insufficient: 402,
  /** A payment credential of a method this server does not accept. */
  payment_method_unsupported: 400,
  /** A payment channel this server does not know (register it first), or one closed for good. */
  channel_not_found: 410,
  channel_finalized: 410,
  /** A voucher below the channel's highest accepted one. */
  voucher_too_low: 402,
  /** A voucher above the channel's deposit. */
  voucher_above_deposit: 402,
  /** A voucher not signed by the channel's signer. */
  voucher_invalid_signature: 402,
  forbidden: 403,
  not_found: 404,
  model_not_found: 404,
  /** A model its provider has retired (past its sunset day); the message names the successor. */
  model_retired: 410,
  media_not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  idempotency_conflict: 409,
  idempotency_in_progress: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  range_not_satisfiable: 416,
  unprocessable: 422,
  rate_limited: 429,
  /** The caller closed the connection before its answer (nginx's code); recorded, never seen by the caller. */
  client_disconnected: 499,
  internal_error: 500,
  upstream_error: 502,
  not_configured: 503,
  unavailable: 503,
  /** Every worker thread busy and their queue full (a card, a face call): retry after `Retry-After`; nothing charged. */
  overloaded: 503,
  upstream_timeout: 504,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

/** One problem with one input field, as listed in `details` of a 400. */
export interface FieldError {
  field: string;
  message: string;
}

export interface ErrorBody {
  /** RFC 9457 members, on payment errors. */
  type?: string;
  title?: string;
  status?: number;
  detail?: string;
  error: { code: ErrorCode; message: string; type: string; param?: string; details?: unknown };
}

/** The payment problem types (the Payment HTTP authentication scheme's RFC 9457 vocabulary) of kasir's codes. */
const PAYMENT_PROBLEMS: Partial<Record<ErrorCode, string>> = {
  payment_required: 'payment-required',
  price_above_max: 'payment-required',
  insufficient_balance: 'payment-insufficient',
  spend_cap_exceeded: 'payment-insufficient',
  payment_insufficient: 'payment-insufficient',
  payment_expired: 'payment-expired',
  payment_malformed: 'malformed-credential',
  payment_challenge_invalid: 'invalid-challenge',
  payment_invalid: 'verification-failed',
  payment_replayed: 'verification-failed',
  payment_failed: 'verification-failed',
  payment_in_progress: 'verification-failed',
  payment_method_unsupported: 'method-unsupported',
  channel_not_found: 'session/channel-not-found',
  channel_finalized: 'session/channel-finalized',
  voucher_too_low: 'session/delta-too-small',
  voucher_above_deposit: 'session/amount-exceeds-deposit',
  voucher_invalid_signature: 'session/invalid-signature',
};

export const PROBLEM_BASE = 'https://paymentauth.org/problems/';
export const PROBLEM_JSON = 'application/problem+json';

/**
 * A payment error is also an RFC 9457 problem document (`type`, `title`, `status`, `detail` beside kasir's `error`
 * object), so Payment-scheme clients and every other client read the same answer.
 */
export function problemOf(code: ErrorCode): string | undefined {
  const slug = PAYMENT_PROBLEMS[code];
  return slug ? `${PROBLEM_BASE}${slug}` : undefined;
}

const title = (path: string) => titleOf(path.slice(path.lastIndexOf('/') + 1));
const titleOf = (slug: string) =>
  slug.replace(/(^|-)(\w)/g, (_m, sep: string, c: string) => `${sep ? ' ' : ''}${c.toUpperCase()}`);

/**
 * The error class in the common chat wire format's vocabulary, so OpenAI-style clients (which read
 * `error.type` and `error.param`) understand kasir's errors on every route, not only on chat completions.
 */
function errorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 402) return 'payment_required';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 409) return 'conflict_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/**
 * An error the API answers with. Throw it anywhere below a route; `app.onError` renders it.
 * @example throw new ApiError('invalid_input', 'lat must be between -90 and 90', [{ field: 'lat', message: '…' }])
 */
export class ApiError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    // An ApiError is an expected answer (a 402, a 404), not a fault to debug: skip the stack capture,
    // which would otherwise be the most expensive part of answering one.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ApiError';
    this.status = ERROR_STATUS[code];
  }

  /** The media type of the answer: a problem document for payment errors. */
  get contentType(): string {
    return problemOf(this.code) ? PROBLEM_JSON : 'application/json';
  }

  toBody(): ErrorBody {
    const first = Array.isArray(this.details)
      ? (this.details[0] as Partial<FieldError> | undefined)
      : undefined;
    const problem = problemOf(this.code);
    return {
      ...(problem
        ? {
            type: problem,
            title: title(problem.slice(PROBLEM_BASE.length)),
            status: this.status,
            detail: this.message,
          }
        : {}),
      error: {
        code: this.code,
        message: this.message,
        type: errorType(this.status),
        ...(typeof first?.field === 'string' ? { param: first.field } : {}),
        ...(this.details === undefined ? {} : { details: this.details }),
      },
    };
  }
}

/** A 400 listing each bad field; the message names them so a reader of only the message still knows. */
export function invalidInput(errors: FieldError[], prefix = 'invalid input'): ApiError {
  const summary = errors
    .slice(0, 5)
    .map((e) => `${e.field}: ${e.message}`)
    .join('; ');
  return new ApiError('invalid_input', `${prefix}: ${summary}`, errors);
}
