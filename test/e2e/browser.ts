/**
 * What the browser tests share: Debian's chromium driven by playwright-core (no browser download), the service on
 * port 0 with an operator, screenshots under test-results/ (git-ignored) for a person to look at, and a plain HTTP
 * client that logs in the way a browser does (to send requests no browser would: without CSRF token, with an old
 * cookie).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { request } from 'undici';
import { addOperator } from '../../src/operators/accounts.ts';
import { startTestService, type TestService } from '../helpers/service.ts';

export const SHOTS = path.resolve('test-results', 'screenshots');
export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

export async function launch(): Promise<Browser> {
  // In Italian, as the customers' and operators' browsers are (Accept-Language, the browser's own words). Headless
  // Chromium still draws date pickers as mm/dd/yyyy; a person's Italian browser shows 28/11/2026.
  return chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--lang=it-IT'] });
}

/** A new browser context that records every script error and dialog, so an XSS that ran is caught. */
export async function newPage(browser: Browser, viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page; incidents: string[] }> {
  const context = await browser.newContext({ viewport, locale: 'it-IT' });
  const page = await context.newPage();
  const incidents: string[] = [];
  page.on('dialog', (d) => {
    incidents.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  page.on('pageerror', (e) => incidents.push(`page error: ${e.message}`));
  return { context, page, incidents };
}

/** Fails when the page is wider than its viewport (a phone would have to scroll sideways). */
export async function assertNoSideScroll(page: Page): Promise<void> {
  const overflow = await page.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth') as number;
  if (overflow > 0) throw new Error(`the page scrolls sideways by ${overflow} px`);
}

/** How many times a screenshot is taken when Chromium answers that it could not capture one. */
const SHOT_ATTEMPTS = 3;

/**
 * Keeps a screenshot of the page (evidence for people to look at, not an assertion). Chromium now and then answers a
 * capture with "Unable to capture screenshot" while it composites under load (seen once in CI on a page that had
 * rendered); that answer is asked again, any other error fails the test.
 */
export async function shot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  for (let attempt = 1; ; attempt++) {
    try {
      await page.screenshot({ path: path.join(SHOTS, `${name}.png`), fullPage: true });
      return;
    } catch (e) {
      if (attempt >= SHOT_ATTEMPTS || !/Unable to capture screenshot/.test(String(e))) throw e;
    }
  }
}

export async function startWithOperator(env: Record<string, string> = {}): Promise<{ t: TestService; email: string; password: string }> {
  const t = await startTestService(env);
  const { password } = await addOperator(t.service.store, { email: 'ops@example.com', role: 'operator' });
  return { t, email: 'ops@example.com', password };
}

export async function login(page: Page, base: string, area: 'console' | 'portale', user: string, password: string): Promise<void> {
  await page.goto(`${base}/${area}/login`);
  await page.getByLabel(area === 'console' ? 'Indirizzo e-mail' : 'Utente').fill(user);
  await page.getByLabel('Password').fill(password);
  await Promise.all([page.waitForURL(`${base}/${area}/`), page.getByRole('button', { name: 'Accedi' }).click()]);
}

/** Cookie jar of one plain HTTP client (name → value), enough for our two or three cookies. */
export class Client {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async send(method: 'GET' | 'POST', url: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const res = await request(`${this.base}${url}`, {
      method,
      headers: { cookie: this.header(), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...headers },
      body: form ? new URLSearchParams(form).toString() : undefined,
    });
    const set = res.headers['set-cookie'];
    for (const c of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = c.split(';');
      const i = pair!.indexOf('=');
      const name = pair!.slice(0, i);
      const value = pair!.slice(i + 1);
      if (value === '' || /Expires=Thu, 01 Jan 1970/i.test(c)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    const body = await res.body.text();
    return { status: res.statusCode, headers: res.headers, body };
  }

  /** The CSRF token of the page at `url` (its hidden _csrf field). */
  async token(url: string): Promise<string> {
    const { body } = await this.send('GET', url);
    const m = /name="_csrf" value="([^"]+)"/.exec(body);
    if (!m?.[1]) throw new Error(`no CSRF token on ${url}`);
    return m[1];
  }

  async login(area: 'console' | 'portale', user: string, password: string) {
    const _csrf = await this.token(`/${area}/login`);
    return this.send('POST', `/${area}/login`, { _csrf, user, password });
  }
}
