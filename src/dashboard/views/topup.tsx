/** The sign-in page, the top-up form and history, and one order's page (QR, waiting, paid, key shown once). */
import { formatUsd } from '../../ledger/money.js';
import type { TopupStatus } from '../../store/schema.js';
import type { TopupOrder } from '../../topup/orders.js';
import { formatIdr } from '../../topup/rupiah.js';
import { Csrf, Layout, type PageContext } from './layout.js';

export function SignInPage(props: { page: PageContext; error?: string | undefined; wallet: boolean }) {
  const { t, csrf } = props.page;
  return (
    <Layout page={props.page} title={t.signIn}>
      {props.error ? <p class="error">{props.error}</p> : null}
      <section class="card">
        <h2>{t.signInWithKey}</h2>
        <form method="post" action="/dashboard/login" class="stack" id="login">
          <Csrf token={csrf} />
          <label>
            {t.apiKey} <input name="key" type="password" autocomplete="off" required placeholder="ksr_…" />
          </label>
          <button type="submit">{t.signIn}</button>
        </form>
      </section>
      {props.page.topup ? (
        <section class="card">
          <h2>{t.topup}</h2>
          <p>{t.topupIntro}</p>
          <a class="button" href="/dashboard/topup">
            {t.topup}
          </a>
        </section>
      ) : null}
      {props.wallet ? (
        <section class="card" id="siwe" data-nonce-url="/dashboard/siwe/nonce">
          <h2>{t.orSignInWallet}</h2>
          <form method="post" action="/dashboard/siwe" class="stack" id="siwe-form">
            <Csrf token={csrf} />
            <input type="hidden" name="message" />
            <input type="hidden" name="signature" />
            <button type="button" id="siwe-button">
              {t.signInWallet}
            </button>
          </form>
        </section>
      ) : null}
    </Layout>
  );
}

export interface TopupLimits {
  enabled: boolean;
  minIdr: number;
  maxIdr: number;
  idrPerUsd: number;
}

export function TopupPage(props: {
  page: PageContext;
  limits: TopupLimits;
  history: TopupOrder[];
  error?: string | undefined;
}) {
  const { t, csrf, who } = props.page;
  const l = props.limits;
  return (
    <Layout page={props.page} title={t.topup}>
      {props.error ? <p class="error">{props.error}</p> : null}
      <section class="card">
        <p>{who ? t.topupSignedIn : t.topupIntro}</p>
        {l.enabled ? (
          <form method="post" action="/dashboard/topup" class="stack" id="topup">
            <Csrf token={csrf} />
            <label>
              {t.amountIdr}{' '}
              <input
                name="amount_idr"
                type="number"
                min={l.minIdr}
                max={l.maxIdr}
                step={1}
                value={String(Math.max(l.minIdr, Math.min(50_000, l.maxIdr)))}
                required
              />
            </label>
            <p class="note">
              {formatIdr(l.minIdr)} – {formatIdr(l.maxIdr)} · {t.rate}: {formatIdr(l.idrPerUsd)}/USD
            </p>
            <button type="submit">{t.payWithQris}</button>
          </form>
        ) : (
          <p>{t.topupOff}</p>
        )}
      </section>
      {props.history.length ? (
        <section class="card">
          <h2>{t.history}</h2>
          <div class="scroll">
            <table id="topups">
              <thead>
                <tr>
                  <th>{t.time}</th>
                  <th>{t.order}</th>
                  <th class="num">IDR</th>
                  <th class="num">USD</th>
                  <th>{t.status}</th>
                </tr>
              </thead>
              <tbody>
                {props.history.map((o) => (
                  <tr>
                    <td>{o.created_at.replace('T', ' ').slice(0, 19)}</td>
                    <td>
                      <a href={`/dashboard/topup/${o.id}`}>{o.id}</a>
                    </td>
                    <td class="num">{formatIdr(o.amount_idr)}</td>
                    <td class="num">{formatUsd(o.amount_micro_usd)}</td>
                    <td>{o.status}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </section>
      ) : null}
    </Layout>
  );
}

export function OrderPage(props: {
  page: PageContext;
  order: TopupOrder;
  status: TopupStatus;
  /** The visitor may claim this order's key now. */
  claimable: boolean;
  newKey?: string | undefined;
}) {
  const { t, csrf } = props.page;
  const o = props.order;
  const pending = props.status === 'pending';
  return (
    <Layout
      page={props.page}
      title={`${t.topup} ${formatIdr(o.amount_idr)}`}
      head={
        pending ? (
          <noscript>
            <meta http-equiv="refresh" content="5" />
          </noscript>
        ) : undefined
      }
    >
      <section
        class="card"
        id="order"
        data-status={props.status}
        data-status-url={pending ? `/dashboard/topup/${o.id}/status` : undefined}
      >
        <p>
          {formatIdr(o.amount_idr)} → <strong>${formatUsd(o.amount_micro_usd)}</strong> ({t.rate}{' '}
          {formatIdr(o.idr_per_usd)}/USD)
        </p>
        {pending && o.qr_string ? (
          <>
            <p>{t.scanToPay}</p>
            <img
              src={`/dashboard/topup/${o.id}/qr.svg`}
              alt="QRIS"
              width={280}
              height={280}
              class="qr"
              id="qr"
            />
            <p class="note">
              {t.expiresAt} <time datetime={o.expires_at}>{o.expires_at.replace('T', ' ').slice(0, 19)}</time>{' '}
              UTC
            </p>
            <p id="waiting">{t.waiting}</p>
            <p>
              <a href={`/dashboard/topup/${o.id}`}>{t.checkAgain}</a>
            </p>
          </>
        ) : null}
        {props.status === 'paid' ? <p id="paid">{t.paid}</p> : null}
        {props.status === 'expired' ? <p class="error">{t.expired}</p> : null}
        {props.status === 'failed' ? <p class="error">{t.failed}</p> : null}
        {props.newKey ? (
          <div class="once" id="new-key">
            <p>{t.newKeyOnce}</p>
            <code class="key" id="new-key-value">
              {props.newKey}
            </code>
            <p>
              <a class="button" href="/dashboard">
                {t.overview}
              </a>
            </p>
          </div>
        ) : props.claimable ? (
          <form method="post" action={`/dashboard/topup/${o.id}/claim`} id="claim">
            <Csrf token={csrf} />
            <button type="submit">{t.getKey}</button>
          </form>
        ) : props.status === 'paid' && o.new_account && o.key_id ? (
          <p>{t.keyClaimed}</p>
        ) : null}
      </section>
    </Layout>
  );
}
