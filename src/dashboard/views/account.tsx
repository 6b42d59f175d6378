/** Pages of a signed-in account: overview (balance), keys, usage (table, paging, charts). */

import type { PublicKey } from '../../ledger/accounts.js';
import { formatUsd } from '../../ledger/money.js';
import { formatIdr, microUsdToIdr } from '../../topup/rupiah.js';
import type { SpendSeries, UsageLine } from '../usage-data.js';
import { Csrf, Layout, type PageContext } from './layout.js';

export function Money(props: { microUsd: number; idrPerUsd: number }) {
  return (
    <span class="money">
      <span class="usd">${formatUsd(props.microUsd)}</span>{' '}
      <span class="idr">≈ {formatIdr(microUsdToIdr(props.microUsd, props.idrPerUsd))}</span>
    </span>
  );
}

export function OverviewPage(props: {
  page: PageContext;
  balance: { balanceMicroUsd: number; heldMicroUsd: number; availableMicroUsd: number };
  idrPerUsd: number;
  keyCount: number;
}) {
  const { t } = props.page;
  const b = props.balance;
  return (
    <Layout page={props.page} title={t.overview}>
      <section class="card">
        <h2>{t.balance}</h2>
        <p class="big" id="balance">
          <Money microUsd={b.balanceMicroUsd} idrPerUsd={props.idrPerUsd} />
        </p>
        <p>
          {t.available}: <Money microUsd={b.availableMicroUsd} idrPerUsd={props.idrPerUsd} />
        </p>
        <p>
          {t.held}: <Money microUsd={b.heldMicroUsd} idrPerUsd={props.idrPerUsd} />
        </p>
        <p class="note">
          {t.rateNote} {formatIdr(props.idrPerUsd)}/USD.
        </p>
        <p>
          {props.page.topup ? (
            <>
              <a class="button" href="/dashboard/topup">
                {t.topup}
              </a>{' '}
            </>
          ) : null}
          <a href="/dashboard/keys">
            {t.keys} ({props.keyCount})
          </a>
        </p>
      </section>
    </Layout>
  );
}

const usdOrEmpty = (micro: number | null) => (micro === null ? '' : formatUsd(micro));

export function KeysPage(props: {
  page: PageContext;
  keys: PublicKey[];
  newKey?: string | undefined;
  notice?: string | undefined;
}) {
  const { t, csrf } = props.page;
  return (
    <Layout page={props.page} title={t.keys}>
      {props.newKey ? (
        <section class="card once" id="new-key">
          <p>{t.newKeyOnce}</p>
          <code class="key" id="new-key-value">
            {props.newKey}
          </code>
        </section>
      ) : null}
      {props.notice ? <p class="notice">{props.notice}</p> : null}
      <section class="card">
        <h2>{t.createKey}</h2>
        <form method="post" action="/dashboard/keys" class="stack" id="create-key">
          <Csrf token={csrf} />
          <label>
            {t.label} <input name="label" maxlength={200} />
          </label>
          <label>
            {t.spendCap} <input name="spend_cap_usd" inputmode="decimal" pattern="\d+(\.\d{1,6})?" />
          </label>
          <label>
            {t.rateLimit} <input name="rate_limit_per_minute" inputmode="numeric" pattern="\d+" />
          </label>
          <button type="submit">{t.create}</button>
        </form>
      </section>
      <section class="card">
        <h2>{t.keys}</h2>
        {props.keys.length === 0 ? <p>{t.noKeys}</p> : null}
        <ul class="keys">
          {props.keys.map((k) => (
            <li class={k.revoked_at ? 'revoked' : ''} data-key-id={k.id}>
              <p>
                <code>{k.prefix}…</code> <span class="tag">{k.revoked_at ? t.revoked : t.active}</span>{' '}
                {k.spend_cap_micro_usd !== null ? (
                  <span class="note">
                    {t.spent}: ${formatUsd(k.spent_micro_usd)} / ${formatUsd(k.spend_cap_micro_usd)}
                  </span>
                ) : null}
              </p>
              {k.revoked_at ? (
                <p>{k.label}</p>
              ) : (
                <>
                  <form method="post" action={`/dashboard/keys/${k.id}`} class="row">
                    <Csrf token={csrf} />
                    <label>
                      {t.label} <input name="label" value={k.label ?? ''} maxlength={200} />
                    </label>
                    <label>
                      {t.spendCap}{' '}
                      <input
                        name="spend_cap_usd"
                        value={usdOrEmpty(k.spend_cap_micro_usd)}
                        inputmode="decimal"
                        pattern="\d+(\.\d{1,6})?"
                      />
                    </label>
                    <label>
                      {t.rateLimit}{' '}
                      <input
                        name="rate_limit_per_minute"
                        value={k.rate_limit_per_minute === null ? '' : String(k.rate_limit_per_minute)}
                        inputmode="numeric"
                        pattern="\d+"
                      />
                    </label>
                    <button type="submit">{t.save}</button>
                  </form>
                  <form method="post" action={`/dashboard/keys/${k.id}/revoke`} class="inline">
                    <Csrf token={csrf} />
                    <button type="submit" class="danger">
                      {t.revoke}
                    </button>
                  </form>
                </>
              )}
            </li>
          ))}
        </ul>
      </section>
    </Layout>
  );
}

export function UsagePage(props: {
  page: PageContext;
  lines: UsageLine[];
  nextBefore: number | null;
  paged: boolean;
  series: SpendSeries;
}) {
  const { t, who } = props.page;
  const chartData = JSON.stringify({
    perDay: props.series.perDay.map((d) => ({ label: d.day, usd: formatUsd(d.microUsd) })),
    perModel: props.series.perModel.map((m) => ({ label: m.model, usd: formatUsd(m.microUsd) })),
  });
  return (
    <Layout
      page={props.page}
      title={t.usage}
      head={<script src="/dashboard/assets/chart.umd.min.js" defer />}
    >
      {who && 'wallet' in who ? (
        <p class="note">
          {t.walletNote} <code>{who.wallet}</code>
        </p>
      ) : null}
      <section class="charts">
        <figure class="card">
          <figcaption>{t.spendPerDay}</figcaption>
          <div class="chart-box">
            <canvas id="chart-day" aria-label={t.spendPerDay} />
          </div>
        </figure>
        <figure class="card">
          <figcaption>{t.spendPerModel}</figcaption>
          <div class="chart-box">
            <canvas id="chart-model" aria-label={t.spendPerModel} />
          </div>
        </figure>
        {/* JSON as data, not code (the CSP runs no inline script); "<" escaped so no text can close the element. */}
        <script
          type="application/json"
          id="chart-data"
          dangerouslySetInnerHTML={{ __html: chartData.replaceAll('<', '\\u003c') }}
        />
      </section>
      <p>
        <a class="button" href="/dashboard/usage.csv" download="kasir-usage.csv" id="export-csv">
          {t.exportCsv}
        </a>
      </p>
      {props.lines.length === 0 ? (
        <p>{t.noUsage}</p>
      ) : (
        <div class="scroll">
          <table id="usage">
            <thead>
              <tr>
                <th>{t.time}</th>
                <th>{t.route}</th>
                <th>{t.model}</th>
                <th class="num">{t.cost}</th>
                <th>{t.status}</th>
                <th>{t.rail}</th>
              </tr>
            </thead>
            <tbody>
              {props.lines.map((l) => (
                <tr>
                  <td>
                    <time datetime={l.time}>{l.time.replace('T', ' ').slice(0, 19)}</time>
                  </td>
                  <td>
                    <code>{l.route}</code>
                  </td>
                  <td>{l.model}</td>
                  <td class="num">{formatUsd(l.costMicroUsd)}</td>
                  <td>
                    {l.status} ({l.httpStatus})
                  </td>
                  <td>{l.rail}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <p class="paging">
        {props.paged ? <a href="/dashboard/usage">{t.newest}</a> : null}{' '}
        {props.nextBefore !== null ? (
          <a href={`/dashboard/usage?before=${props.nextBefore}`} rel="next">
            {t.older}
          </a>
        ) : null}
      </p>
    </Layout>
  );
}
