/**
 * Sign-In with Ethereum (EIP-4361) for wallets that paid on a wallet rail: the server writes the message (viem's
 * SIWE utilities) with a one-time nonce kept in an HttpOnly cookie, the wallet signs it, and the server checks
 * domain, nonce, time and the signature (an externally owned account's) before signing the wallet in. The session
 * then sees the usage rows that wallet paid for. A browser's form post sends the message's line ends as CRLF (the
 * HTML form encoding normalises them), so the message is checked with the LF line ends the wallet signed. A refusal
 * is the sign-in page with the reason (401), not an API error: the form is posted by a browser.
 */
import type { OpenAPIHono } from '@hono/zod-openapi';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Deps } from '../deps.js';
import type { AppEnv } from '../http/env.js';
import { invalidInput } from '../http/errors.js';
import { cookiePolicy, readForm, visit } from './context.js';
import { startSession } from './session.js';
import { SignInPage } from './views/topup.js';

const NONCE_COOKIE = 'kasir_siwe';

/** viem and its SIWE helpers, loaded on the first sign-in (most instances never see one). */
const loadViem = () => Promise.all([import('viem'), import('viem/siwe')]);

export function mountSiwe(app: OpenAPIHono<AppEnv>, deps: Deps): void {
  const policy = cookiePolicy(deps);
  const base = new URL(deps.config.publicBaseUrl);

  app.get('/dashboard/siwe/message', async (c) => {
    const [{ getAddress, isAddress }, { createSiweMessage, generateSiweNonce }] = await loadViem();
    const address = c.req.query('address') ?? '';
    const chainId = Number(c.req.query('chainId') ?? '1');
    if (!isAddress(address)) throw invalidInput([{ field: 'address', message: 'an Ethereum address' }]);
    if (!Number.isSafeInteger(chainId) || chainId < 1)
      throw invalidInput([{ field: 'chainId', message: 'a chain id' }]);
    const nonce = generateSiweNonce();
    setCookie(c, NONCE_COOKIE, nonce, {
      path: '/dashboard',
      httpOnly: true,
      sameSite: 'Strict',
      secure: policy.secure,
      maxAge: 600,
    });
    const now = new Date();
    const message = createSiweMessage({
      address: getAddress(address),
      chainId,
      domain: base.host,
      uri: `${base.origin}/dashboard`,
      version: '1',
      nonce,
      statement: 'Sign in to the kasir dashboard to see the calls this wallet paid for.',
      issuedAt: now,
      expirationTime: new Date(now.getTime() + 600_000),
    });
    return c.json({ message });
  });

  app.post('/dashboard/siwe', async (c) => {
    const [{ getAddress, verifyMessage }, { parseSiweMessage, validateSiweMessage }] = await loadViem();
    const v = await visit(c, deps);
    const form = await readForm(c, v.session);
    const nonce = getCookie(c, NONCE_COOKIE);
    deleteCookie(c, NONCE_COOKIE, { path: '/dashboard' });
    // EIP-4361 lines end in LF; the form encoding turned them into CRLF on the way.
    const message = (form.message ?? '').replace(/\r\n?/g, '\n');
    const signature = form.signature ?? '';
    const parsed = parseSiweMessage(message);
    const valid =
      !!nonce &&
      /^0x[0-9a-fA-F]+$/.test(signature) &&
      !!parsed.address &&
      validateSiweMessage({ message: parsed, domain: base.host, nonce }) &&
      (await verifyMessage({
        address: parsed.address,
        message,
        signature: signature as `0x${string}`,
      }).catch(() => false));
    if (!valid || !parsed.address)
      return c.html(SignInPage({ page: v.page, error: v.page.t.badWalletSignature, wallet: true }), 401);
    await startSession(c, deps.db, policy, { wallet: getAddress(parsed.address) });
    return c.redirect('/dashboard/usage', 303);
  });
}
