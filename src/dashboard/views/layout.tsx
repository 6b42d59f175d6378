/** The page shell of every dashboard page: head (own stylesheet and script only), navigation, sign-out form. */
import type { Child } from 'hono/jsx';
import type { Lang, T } from '../i18n.js';

export interface PageContext {
  t: T;
  lang: Lang;
  csrf: string;
  /** Who is signed in: an account id, a wallet address, or null. */
  who: { accountId: string } | { wallet: string } | null;
  path: string;
  /** Whether this server takes top-ups (a payment gateway is configured): no Top up link otherwise. */
  topup: boolean;
}

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

export function Layout(props: { page: PageContext; title: string; children?: Child; head?: Child }) {
  const { t, lang, who, csrf, path, topup } = props.page;
  const other = lang === 'en' ? 'id' : 'en';
  const links: Array<[string, string]> = who
    ? 'accountId' in who
      ? [
          ['/dashboard', t.overview],
          ['/dashboard/keys', t.keys],
          ['/dashboard/usage', t.usage],
          ['/dashboard/topup', t.topup],
        ]
      : [['/dashboard/usage', t.usage]]
    : [
        ['/dashboard', t.signIn],
        ['/dashboard/topup', t.topup],
      ];
  const nav = topup ? links : links.filter(([href]) => href !== '/dashboard/topup');
  return (
    <html lang={lang}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <title>{`${props.title} · ${t.title}`}</title>
        <link rel="stylesheet" href="/dashboard/assets/dashboard.css" />
        {props.head}
        <script src="/dashboard/assets/dashboard.js" defer />
      </head>
      <body>
        <header>
          <nav>
            <strong class="brand">kasir</strong>
            {nav.map(([href, label]) => (
              <a href={href} aria-current={href === path ? 'page' : undefined}>
                {label}
              </a>
            ))}
            <a href={`${path}?lang=${other}`} class="lang">
              {t.language}
            </a>
            {who ? (
              <form method="post" action="/dashboard/logout" class="inline">
                <Csrf token={csrf} />
                <button type="submit" class="link">
                  {t.signOut}
                </button>
              </form>
            ) : null}
          </nav>
        </header>
        <main>
          <h1>{props.title}</h1>
          {props.children}
        </main>
      </body>
    </html>
  );
}
