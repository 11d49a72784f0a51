/**
 * The site report as PDF (docs/report.md "PDF"): its HTML printed by the system's Chromium through
 * playwright-core, as the tests drive it, with JavaScript off and no network (the report needs
 * neither). Without a Chromium, or without playwright-core, the answer says so and that the HTML
 * prints to PDF from any browser.
 */
import fs from 'node:fs';

/** Where a Chromium is looked for: $CHROMIUM_PATH alone when set, else the usual places of Debian, other Linux, macOS and Windows. */
function candidates(): string[] {
  // $CHROMIUM_PATH, when set, is the only one: the engineer (or a test) chose it.
  const env = process.env.CHROMIUM_PATH;
  if (env) return [env];
  return [
    '/usr/bin/chromium',
    '/usr/bin/chromium-browser',
    '/usr/bin/google-chrome',
    '/usr/bin/google-chrome-stable',
    '/Applications/Chromium.app/Contents/MacOS/Chromium',
    '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
    'C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe',
    'C:\\Program Files (x86)\\Google\\Chrome\\Application\\chrome.exe',
  ];
}

export function findChromium(): string | undefined {
  return candidates().find((file) => fs.existsSync(file));
}

export type PdfResult = { readonly ok: true; readonly pdf: Buffer } | { readonly ok: false; readonly reason: string };

export const PRINT_THE_HTML = 'Save the report as HTML and print it to PDF from a browser (its print style makes A4 pages).';

/** The report's HTML as an A4 PDF, or why it cannot be made here. */
export async function reportPdf(html: string): Promise<PdfResult> {
  const executablePath = findChromium();
  if (!executablePath) return { ok: false, reason: `No Chromium found (looked for ${candidates().slice(0, 4).join(', ')}${candidates().length > 4 ? '…' : ''}; $CHROMIUM_PATH names another). ${PRINT_THE_HTML}` };
  let chromium: typeof import('playwright-core').chromium;
  try {
    ({ chromium } = await import('playwright-core'));
  } catch {
    return { ok: false, reason: `playwright-core is not installed with this Outpost. ${PRINT_THE_HTML}` };
  }
  const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  try {
    const context = await browser.newContext({ javaScriptEnabled: false, offline: true });
    const page = await context.newPage();
    // Nothing leaves: the report asks for nothing, and a request that would is refused.
    await page.route('**/*', (route) => route.abort());
    await page.setContent(html, { waitUntil: 'load' });
    const pdf = await page.pdf({ format: 'A4', printBackground: true, preferCSSPageSize: true });
    return { ok: true, pdf };
  } finally {
    await browser.close();
  }
}
