/** What each dashboard handler starts from: the session, language and CSRF token, and form reading. */
import type { Context } from 'hono';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { invalidInput } from '../http/errors.js';
import { pickLang, WORDS } from './i18n.js';
import { type CookiePolicy, checkCsrf, csrfToken, loadSession, type Session } from './session.js';
import type { Viewer } from './usage-data.js';
import type { PageContext } from './views/layout.js';

export interface Visit {
  session: Session | null;
  page: PageContext;
  viewer: Viewer | null;
}

export function cookiePolicy(deps: Deps): CookiePolicy {
  return {
    secure: deps.config.publicBaseUrl.startsWith('https:'),
    sessionHours: deps.config.dashboard.sessionHours,
  };
}

export function viewerOf(session: Session | null): Viewer | null {
  if (session?.account_id) return { accountId: session.account_id };
  if (session?.wallet) return { wallet: session.wallet };
  return null;
}

export async function visit(c: Context<AppEnv>, deps: Deps, session?: Session | null): Promise<Visit> {
  const s = session === undefined ? await loadSession(c, deps.db) : session;
  const lang = pickLang(c);
  const viewer = viewerOf(s);
  return {
    session: s,
    viewer,
    page: {
      t: WORDS[lang],
      lang,
      csrf: csrfToken(c, s, cookiePolicy(deps)),
      who: viewer,
      path: c.req.path,
      topup: deps.config.dashboard.topup.midtrans !== null,
    },
  };
}

/** Reads a submitted form and checks its CSRF token against the browser's session (or its CSRF cookie). */
export async function readForm(c: Context<AppEnv>, session: Session | null): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  checkCsrf(c, session, body._csrf);
  const fields: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') fields[k] = v.trim();
  return fields;
}

/** "12.5" → 12_500_000 micro-USD, exactly (a decimal string, at most 6 places); "" → null. */
export function parseUsdField(field: string, raw: string | undefined): number | null {
  if (!raw) return null;
  const m = /^(\d{1,9})(?:\.(\d{1,6}))?$/.exec(raw);
  if (!m) throw invalidInput([{ field, message: 'a dollar amount like 5 or 2.50' }]);
  const micro = Number(m[1]) * 1_000_000 + Number((m[2] ?? '').padEnd(6, '0'));
  if (micro <= 0) throw invalidInput([{ field, message: 'must be more than 0' }]);
  return micro;
}

export function parseIntField(
  field: string,
  raw: string | undefined,
  min: number,
  max: number,
): number | null {
  if (!raw) return null;
  const n = /^\d{1,12}$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw invalidInput([{ field, message: `a whole number from ${min} to ${max}` }]);
  return n;
}
