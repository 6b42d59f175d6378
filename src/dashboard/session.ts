/**
 * Dashboard sessions: a random id in an HttpOnly, SameSite=Strict cookie (Secure when the server is reached over
 * https); the database keeps only its SHA-256, who it signs in (an account, or a wallet address) and the session's
 * CSRF token. A visitor without a session gets a CSRF token in a cookie of its own (double submit).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { AppEnv } from '../http/env.js';
import { ApiError } from '../http/errors.js';
import type { Db } from '../store/db.js';
import type { DashboardSessionTable } from '../store/schema.js';

export const SESSION_COOKIE = 'kasir_session';
export const CSRF_COOKIE = 'kasir_csrf';

export type Session = DashboardSessionTable;

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const token = () => randomBytes(32).toString('base64url');

export interface CookiePolicy {
  secure: boolean;
  sessionHours: number;
}

function cookieOptions(policy: CookiePolicy, maxAgeSeconds?: number) {
  return {
    path: '/dashboard',
    httpOnly: true,
    sameSite: 'Strict' as const,
    secure: policy.secure,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** Signs the browser in: a new session (any earlier one of this browser ends), its cookie set. */
export async function startSession(
  c: Context<AppEnv>,
  db: Db,
  policy: CookiePolicy,
  who: { accountId: string } | { wallet: string },
): Promise<Session> {
  await endSession(c, db, policy);
  const id = token();
  const now = Date.now();
  // Expired sessions are swept as new ones start (they are refused on sight anyway).
  await db.kysely
    .deleteFrom('dashboard_sessions')
    .where('expires_at', '<', new Date(now).toISOString())
    .execute();
  const row: Session = {
    id_hash: sha256(id),
    account_id: 'accountId' in who ? who.accountId : null,
    wallet: 'wallet' in who ? who.wallet : null,
    csrf_token: token(),
    created_at: new Date(now).toISOString(),
    expires_at: new Date(now + policy.sessionHours * 3_600_000).toISOString(),
  };
  await db.kysely.insertInto('dashboard_sessions').values(row).execute();
  setCookie(c, SESSION_COOKIE, id, cookieOptions(policy, policy.sessionHours * 3600));
  return row;
}

export async function loadSession(c: Context<AppEnv>, db: Db): Promise<Session | null> {
  const id = getCookie(c, SESSION_COOKIE);
  if (!id) return null;
  const row = await db.kysely
    .selectFrom('dashboard_sessions')
    .selectAll()
    .where('id_hash', '=', sha256(id))
    .executeTakeFirst();
  if (!row || new Date(row.expires_at) <= new Date()) return null;
  return row;
}

export async function endSession(c: Context<AppEnv>, db: Db, policy: CookiePolicy): Promise<void> {
  const id = getCookie(c, SESSION_COOKIE);
  if (id) await db.kysely.deleteFrom('dashboard_sessions').where('id_hash', '=', sha256(id)).execute();
  deleteCookie(c, SESSION_COOKIE, cookieOptions(policy));
}

/** The CSRF token forms rendered for this browser carry: its session's, else its own cookie's (set if missing). */
export function csrfToken(c: Context<AppEnv>, session: Session | null, policy: CookiePolicy): string {
  if (session) return session.csrf_token;
  let t = getCookie(c, CSRF_COOKIE);
  if (!t || t.length < 32) {
    t = token();
    setCookie(c, CSRF_COOKIE, t, cookieOptions(policy));
  }
  return t;
}

/** Refuses a form whose `_csrf` field is not this browser's token (403). */
export function checkCsrf(c: Context<AppEnv>, session: Session | null, given: unknown): void {
  const expected = session ? session.csrf_token : getCookie(c, CSRF_COOKIE);
  const ok =
    typeof given === 'string' &&
    !!expected &&
    given.length === expected.length &&
    timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok)
    throw new ApiError('forbidden', 'the form is missing its CSRF token or it is stale; reload the page');
}
