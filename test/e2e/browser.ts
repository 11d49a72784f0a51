/**
 * Real Chromium (Debian's, installed by .ci/run) driven by playwright-core, against the whole
 * server as `outpost serve` runs it with the renderer's build.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { ADMIN_TOKEN, startAppServer, type TestAppServer } from '../helpers/server';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const RENDERER_DIR = path.join(ROOT, 'dist', 'renderer');
export const SCREENSHOTS = path.join(ROOT, 'docs', 'screenshots');

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The user's language and time zone, pinned: dates are shown in the user's form. */
export const USER_FORM = { locale: 'en-US', timezoneId: 'UTC' } as const;

/** The renderer is built once per test run, by the global setup (test/helpers/globalSetup.ts). */
export function buildRenderer(): void {
  if (!fs.existsSync(path.join(RENDERER_DIR, 'index.html'))) throw new Error(`the renderer build is missing in ${RENDERER_DIR}`);
}

export async function launchChromium(): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium is needed at ${CHROMIUM} (apt-get install chromium), or set CHROMIUM_PATH`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

export interface Session {
  readonly server: TestAppServer;
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/** A signed-in browser on a fresh server (its own data folder). */
export async function openApp(options: { viewport?: { width: number; height: number } } = {}): Promise<Session> {
  buildRenderer();
  const server = await startAppServer({ rendererDir: RENDERER_DIR });
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1360, height: 860 }, ...USER_FORM });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !/403|404|400|409/.test(message.text())) problems.push(message.text());
  });
  await signIn(page, server.url);
  return {
    server,
    browser,
    context,
    page,
    close: async () => {
      await browser.close();
      await server.close();
      if (problems.length > 0) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
    },
  };
}

/** Through the app's own sign-in screen, with the token, as a user of `outpost serve` does. */
export async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/`);
  await page.getByLabel('API token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
}

/** The size of the README's pictures: a common laptop screen. */
export const SCREENSHOT_SIZE = { width: 1366, height: 768 } as const;

/**
 * A README picture of the page: at 1366×768, into docs/screenshots when OUTPOST_SCREENSHOTS=1
 * (`npm run screenshots`), else into a temporary folder, so that a test run leaves the working
 * tree clean. The page gets its own size back afterwards.
 */
export async function screenshot(page: Page, name: string): Promise<void> {
  const toDocs = process.env.OUTPOST_SCREENSHOTS === '1';
  const before = page.viewportSize();
  if (toDocs) await page.setViewportSize(SCREENSHOT_SIZE);
  await snapshot(page, name, toDocs ? SCREENSHOTS : undefined);
  if (toDocs && before) await page.setViewportSize(before);
}

/** The page as a PNG as it is now, into a temporary folder (pictures for looking into a failure). */
export async function snapshot(page: Page, name: string, folder = path.join(os.tmpdir(), 'outpost-screenshots')): Promise<void> {
  fs.mkdirSync(folder, { recursive: true });
  await page.screenshot({ path: path.join(folder, `${name}.png`) });
}

export interface PageSession {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  close(): Promise<void>;
}

/**
 * A signed-in browser on a server started by the test (e.g. a workspace bound to a central
 * server). `expectedStatuses` are answers the page may log as failed loads without it being a
 * problem (e.g. 502 from the proxy while the central server is unreachable).
 */
export async function openAppAt(url: string, options: { viewport?: { width: number; height: number }; expectedStatuses?: readonly number[] } = {}): Promise<PageSession> {
  buildRenderer();
  const browser = await launchChromium();
  const context = await browser.newContext({ viewport: options.viewport ?? { width: 1360, height: 860 }, ...USER_FORM });
  const page = await context.newPage();
  const problems: string[] = [];
  const expected = new RegExp(['403', '404', '400', '409', ...(options.expectedStatuses ?? []).map(String)].join('|'));
  page.on('pageerror', (error) => problems.push(String(error)));
  page.on('console', (message) => {
    if (message.type() === 'error' && !expected.test(message.text())) problems.push(message.text());
  });
  await signIn(page, url);
  return {
    browser,
    context,
    page,
    close: async () => {
      await browser.close();
      if (problems.length > 0) throw new Error(`the page reported errors:\n${problems.join('\n')}`);
    },
  };
}
