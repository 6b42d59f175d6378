// A browser-like client of the dashboard over app.request: keeps cookies, reads each page's CSRF token, posts forms.
import type { TestKasir } from './app.js';

export interface DashResponse {
  status: number;
  headers: Headers;
  text: string;
  setCookies: string[];
}

export class DashboardClient {
  readonly cookies = new Map<string, string>();
  csrf = '';

  constructor(
    private readonly kasir: Pick<TestKasir, 'app'>,
    private readonly origin = 'http://kasir.test',
  ) {}

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  private async take(res: Response): Promise<DashResponse> {
    const setCookies = res.headers.getSetCookie();
    for (const line of setCookies) {
      const [pair = '', ...attrs] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      const gone = attrs.some((a) => /^\s*max-age=0\s*$/i.test(a)) || value === '';
      if (gone) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const text = await res.text();
    const token = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (token) this.csrf = token;
    return { status: res.status, headers: res.headers, text, setCookies };
  }

  async get(path: string, headers: Record<string, string> = {}): Promise<DashResponse> {
    return this.take(
      await this.kasir.app.request(`${this.origin}${path}`, {
        headers: { cookie: this.cookieHeader(), ...headers },
      }),
    );
  }

  /** Posts a form with this browser's CSRF token (unless the fields give their own) and its Origin. */
  async post(
    path: string,
    fields: Record<string, string> = {},
    headers: Record<string, string> = {},
  ): Promise<DashResponse> {
    const body = new URLSearchParams({ _csrf: this.csrf, ...fields });
    return this.take(
      await this.kasir.app.request(`${this.origin}${path}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: this.origin,
          'sec-fetch-site': 'same-origin',
          cookie: this.cookieHeader(),
          ...headers,
        },
        body: body.toString(),
      }),
    );
  }
}

/** The key shown once on a page, if any. */
export function shownKey(html: string): string | undefined {
  return /id="new-key-value">\s*(ksr_[A-Za-z0-9_-]{43})/.exec(html)?.[1];
}
