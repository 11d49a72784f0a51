/**
 * Benchmark of the renderer with 100,000 probes in the workspace, in Chromium: time to the first
 * painted list row, search keystroke to updated list, and frames dropped while scrolling through
 * 10,000 rows. The server is `outpost serve` on a copy of the benchmark data set. Then the host
 * page of a host with four 100 KB values against a baseline host (bench/uiHostPage.ts), on a
 * fresh workspace of its own. And the site survey's Hosts screen over 100,000 hosts with five
 * extra columns (bench/uiHostsSurvey.ts), on a fresh workspace too.
 *
 *   npm run bench:ui -- [--probes 100000] [--cases probes,host-page,hosts-survey] [--host-rounds 7] [--survey-hosts 100000] [--write]
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { BENCH_TOKEN, buildOutpostDataset } from './dataset';
import { LONG_VALUE_CHARS, measureHostPage } from './uiHostPage';
import { measureHostsSurvey, SURVEY_EXTRA_COLUMNS } from './uiHostsSurvey';

// Runs as dist/bench/ui.bench.cjs.
const ROOT = path.resolve(__dirname, '../..');
const CACHE = path.join(ROOT, 'bench', '.cache');
const { values: options } = parseArgs({
  options: {
    probes: { type: 'string', default: '100000' },
    cases: { type: 'string', default: 'probes,host-page' },
    'host-rounds': { type: 'string', default: '7' },
    'survey-hosts': { type: 'string', default: '100000' },
    write: { type: 'boolean', default: false },
  },
});
const PROBES = Number(options.probes);
const CASES = new Set(options.cases.split(','));
const HOST_ROUNDS = Number(options['host-rounds']);
const SURVEY_HOSTS = Number(options['survey-hosts']);
const log = (line: string) => process.stderr.write(`${line}\n`);

const percentile = (values: readonly number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

async function startServer(dataDir: string): Promise<{ url: string; stop(): Promise<void> }> {
  const child = spawn(process.execPath, [path.join(ROOT, 'dist/node/outpost.cjs'), 'serve', '--data', dataDir, '--port', '0', '--admin-token', BENCH_TOKEN], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (c: Buffer) => {
      output += c.toString();
      // The web UI's line comes after the address: both are read before going on.
      const match = /^listening on (\S+)$/m.exec(output);
      if (match && /^web UI: /m.test(output)) resolve(match[1]!);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}:\n${output}`)));
  });
  if (!/web UI: http/.test(output)) throw new Error('the renderer is not built (npm run build:renderer)');
  return { url, stop: () => new Promise((done) => (child.once('exit', () => done()), child.kill('SIGTERM'))) };
}

/** Records, inside the page, when the list's first real row is painted and when searches land. */
const PROBE_SCRIPT = `
window.__bench = { firstRow: undefined, searches: [] };
const seen = () => {
  const cell = document.querySelector('[role=grid] [role=row] [role=gridcell]');
  if (cell && !cell.querySelector('.placeholder') && window.__bench.firstRow === undefined) {
    requestAnimationFrame(() => { window.__bench.firstRow = performance.now(); });
  }
  const grid = document.querySelector('[role=grid]');
  const pending = window.__bench.pending;
  if (grid && pending && grid.getAttribute('aria-busy') === 'false' && Number(grid.dataset.generation) > pending.generation) {
    window.__bench.pending = undefined;
    requestAnimationFrame(() => window.__bench.searches.push(performance.now() - pending.at));
  }
};
new MutationObserver(seen).observe(document, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-busy', 'data-generation'] });
document.addEventListener('input', (event) => {
  if (event.target instanceof HTMLInputElement && event.target.type === 'search') {
    const grid = document.querySelector('[role=grid]');
    window.__bench.pending = { at: event.timeStamp, generation: Number(grid ? grid.dataset.generation : 0) };
  }
}, true);
`;

/** Scrolls the list 10,000 rows down, 60 rows a frame (a fast fling), and returns the frame times (the grid must be that tall). */
const SCROLL_SCRIPT = `(async () => {
  const grid = document.querySelector('[role=grid]');
  const rowHeight = 34;
  const target = 10000 * rowHeight;
  const step = 60 * rowHeight;
  const times = [];
  await new Promise((resolve) => {
    const tick = (now) => {
      times.push(now);
      if (grid.scrollTop >= target) return resolve();
      grid.scrollTop = Math.min(target, grid.scrollTop + step);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  return times.slice(1).map((t, i) => t - times[i]);
})()`;

/**
 * The baseline, measured in the same browser against the same server: a bare same-origin page
 * (served by Playwright's router, no framework) that fetches the same API pages the probe list
 * asks for, parses them and paints them as a plain table. It records when its first 100 rows are
 * painted after navigation, and how long a search (fetch, parse, paint) takes for each prefix
 * that the app's benchmark types. What the app adds over it is the app's own cost.
 */
const BASELINE_PATH = '/__bench-baseline';
const BASELINE_HTML = `<!doctype html><html><body><div role="grid" style="height: 640px; overflow: auto"><table id="rows"></table><div style="height: 360000px"></div></div><script>
window.__baseline = { firstRow: undefined };
const LIST = '/rest/appliances/appliances/';
const paint = (results) => {
  const table = document.getElementById('rows');
  table.replaceChildren(...results.map((row) => {
    const tr = document.createElement('tr');
    for (const key of ['name', 'type', 'address', 'location']) { const td = document.createElement('td'); td.textContent = String(row[key] ?? ''); tr.append(td); }
    return tr;
  }));
  return new Promise((resolve) => requestAnimationFrame(() => resolve(performance.now())));
};
const page = async (query) => (await fetch(LIST + '?' + new URLSearchParams({ ...query, page: '1', page_size: '100' }), { credentials: 'same-origin', headers: { Accept: 'application/json' } })).json();
page({ ordering: 'name' }).then((body) => paint(body.results)).then((t) => { window.__baseline.firstRow = t; }, (error) => { window.__baseline.error = String(error); });
window.__search = async (term) => { const t0 = performance.now(); const body = await page({ search: term }); return (await paint(body.results)) - t0; };
</script></body></html>`;

const SEARCH_TERMS = ['initech nantes', 'globex lyon 2', 'dmz north', 'cyb-sof-wifi'];

async function signIn(page: Page, url: string): Promise<void> {
  await page.goto(`${url}/api-auth/login/?next=/`);
  await page.getByLabel(/token/i).fill(BENCH_TOKEN);
  await page.getByRole('button', { name: /log in|sign in/i }).click();
  await page.waitForURL(`${url}/`);
}

const launchBrowser = () =>
  chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });

/** A signed-in browser context on `url`; the app's CSP forbids eval, which string predicates use: the measuring scripts are ours. */
async function signedInContext(browser: Browser, url: string): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1360, height: 860 }, bypassCSP: true });
  await context.addInitScript(PROBE_SCRIPT);
  const login = await context.newPage();
  await signIn(login, url);
  await login.close();
  return context;
}

/** The probe list's figures, as the rows of a table. */
async function probeCase(browser: Browser): Promise<string> {
  log(`building or reusing the ${PROBES}-probe data set`);
  const source = path.join(CACHE, `outpost-${PROBES}`);
  await buildOutpostDataset(source, PROBES, log);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-ui-bench-'));
  fs.cpSync(path.join(source, 'workspaces'), path.join(dataDir, 'workspaces'), { recursive: true });
  const server = await startServer(dataDir);
  try {
    const context = await signedInContext(browser, server.url);

    log('time to the first painted row');
    const firstPaint: number[] = [];
    for (let i = 0; i < 7; i++) {
      const page = await context.newPage();
      await page.goto(`${server.url}/#/probes?ordering=name`);
      await page.waitForFunction('window.__bench.firstRow !== undefined');
      firstPaint.push(Number(await page.evaluate('window.__bench.firstRow')));
      await page.close();
    }

    log('baseline: a bare page fetching and painting the same list pages');
    await context.route(`${server.url}${BASELINE_PATH}`, (route) => route.fulfill({ contentType: 'text/html', body: BASELINE_HTML }));
    const baselinePaint: number[] = [];
    const bareLoaded = async (bare: Page): Promise<void> => {
      await bare.waitForFunction('window.__baseline && (window.__baseline.firstRow !== undefined || window.__baseline.error !== undefined)', undefined, { timeout: 30_000 });
      const error = await bare.evaluate('window.__baseline.error');
      if (error !== undefined) throw new Error(`the baseline page failed: ${String(error)}`);
    };
    for (let i = 0; i < 7; i++) {
      const bare = await context.newPage();
      await bare.goto(`${server.url}${BASELINE_PATH}`);
      await bareLoaded(bare);
      baselinePaint.push(Number(await bare.evaluate('window.__baseline.firstRow')));
      await bare.close();
    }
    const bare = await context.newPage();
    await bare.goto(`${server.url}${BASELINE_PATH}`);
    await bareLoaded(bare);
    const baselineSearches: number[] = [];
    for (const term of SEARCH_TERMS) {
      for (let n = 1; n <= term.length; n++) baselineSearches.push(Number(await bare.evaluate(`window.__search(${JSON.stringify(term.slice(0, n))})`)));
    }
    const baselineFrames = (await bare.evaluate(SCROLL_SCRIPT)) as number[];
    await bare.close();

    log('search keystrokes');
    const page = await context.newPage();
    await page.goto(`${server.url}/#/probes`);
    await page.waitForFunction('window.__bench.firstRow !== undefined');
    const search = page.getByRole('searchbox', { name: 'Search' });
    for (const term of SEARCH_TERMS) {
      await search.fill('');
      await page.waitForTimeout(300);
      for (const char of term) {
        await search.press(char === ' ' ? 'Space' : char);
        // A fast typist: 120 ms between keys.
        await page.waitForTimeout(120);
      }
      await page.waitForTimeout(300);
    }
    const keystrokes = (await page.evaluate('window.__bench.searches')) as number[];

    log('scrolling 10,000 rows');
    await search.fill('');
    await page.waitForTimeout(500);
    const frames = (await page.evaluate(SCROLL_SCRIPT)) as number[];
    const budget = 1000 / 60;
    const droppedOf = (times: readonly number[]) => times.reduce((n, d) => n + Math.max(0, Math.round(d / budget) - 1), 0);
    const dropped = droppedOf(frames);
    const baselineDropped = droppedOf(baselineFrames);
    const share = (n: number, times: readonly number[]) => ((n / (times.length + n)) * 100).toFixed(1);
    const ratio = (value: number, base: number) => (value / base).toFixed(2);
    const report = [
      '| measure | value | baseline: a bare page, same requests (same run) | ratio | target |',
      '|---|---|---|---|---|',
      `| time to the first painted row of the probe list (7 fresh loads) | median ${percentile(firstPaint, 50).toFixed(0)} ms, max ${Math.max(...firstPaint).toFixed(0)} ms | median ${percentile(baselinePaint, 50).toFixed(0)} ms, max ${Math.max(...baselinePaint).toFixed(0)} ms | ${ratio(percentile(firstPaint, 50), percentile(baselinePaint, 50))} (medians) | < 1000 ms: ${Math.max(...firstPaint) < 1000 ? 'met' : 'NOT met'} |`,
      `| search keystroke to updated list (${keystrokes.length} keystrokes, 4 searches typed at 120 ms a key) | p50 ${percentile(keystrokes, 50).toFixed(0)} ms, p95 ${percentile(keystrokes, 95).toFixed(0)} ms | fetch, parse and paint of each prefix: p50 ${percentile(baselineSearches, 50).toFixed(0)} ms, p95 ${percentile(baselineSearches, 95).toFixed(0)} ms | ${ratio(percentile(keystrokes, 95), percentile(baselineSearches, 95))} (p95s) | p95 < 100 ms: ${percentile(keystrokes, 95) < 100 ? 'met' : 'NOT met'} |`,
      `| scrolling 10,000 rows (60 rows a frame, rows fetched as they come into view) | ${frames.length} frames, ${dropped} dropped (${share(dropped, frames)} %), p95 frame ${percentile(frames, 95).toFixed(1)} ms | the same scroll over an empty block as tall: ${baselineFrames.length} frames, ${baselineDropped} dropped (${share(baselineDropped, baselineFrames)} %), p95 frame ${percentile(baselineFrames, 95).toFixed(1)} ms | ${ratio(percentile(frames, 95), percentile(baselineFrames, 95))} (p95 frames) | |`,
    ].join('\n');
    await context.close();
    return report;
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The host page of a host with four 100 KB values against a baseline host, on a fresh workspace. */
async function hostPageCase(browser: Browser): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-ui-bench-hosts-'));
  const server = await startServer(dataDir);
  try {
    const context = await signedInContext(browser, server.url);
    log(`the host page: a host with four ${LONG_VALUE_CHARS.toLocaleString('en')}-character values against a baseline host, ${HOST_ROUNDS} rounds`);
    const figures = await measureHostPage(server.url, BENCH_TOKEN, context, HOST_ROUNDS, log);
    await context.close();
    const ms = (runs: readonly { ms: number }[]) => runs.map((r) => r.ms);
    const answers = (runs: readonly { answerMs: number }[]) => runs.map((r) => r.answerMs);
    const tasks = (runs: readonly { longestTask: number }[]) => Math.max(...runs.map((r) => r.longestTask));
    const longMax = Math.max(...ms(figures.long));
    return [
      '| measure | value | baseline: a host of ordinary values (same page, same run) | ratio | target |',
      '|---|---|---|---|---|',
      `| host page with 4×100 KB values (TLS subject, issuer, fingerprint, HTTP server): hash change to the painted identity (${figures.long.length} opens) | median ${percentile(ms(figures.long), 50).toFixed(0)} ms, max ${longMax.toFixed(0)} ms; longest task ${tasks(figures.long).toFixed(0)} ms | median ${percentile(ms(figures.baseline), 50).toFixed(0)} ms, max ${Math.max(...ms(figures.baseline)).toFixed(0)} ms; longest task ${tasks(figures.baseline).toFixed(0)} ms | ${(percentile(ms(figures.long), 50) / percentile(ms(figures.baseline), 50)).toFixed(2)} (medians) | < 200 ms: ${longMax < 200 ? 'met' : 'NOT met'} |`,
      `| the host's API answer alone, fetched and parsed in the same page | median ${percentile(answers(figures.long), 50).toFixed(0)} ms | median ${percentile(answers(figures.baseline), 50).toFixed(0)} ms | | |`,
      `| characters in the page with the long host open (document.documentElement.outerHTML) | ${figures.domChars.toLocaleString('en')} | | | |`,
    ].join('\n');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The Hosts screen over SURVEY_HOSTS hosts with five extra columns, on a fresh workspace. */
async function hostsSurveyCase(browser: Browser): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-ui-bench-survey-'));
  const server = await startServer(dataDir);
  try {
    const context = await signedInContext(browser, server.url);
    log(`the Hosts screen: ${SURVEY_HOSTS.toLocaleString('en')} hosts, columns beyond the default: ${SURVEY_EXTRA_COLUMNS.join(', ')}`);
    const { firstRow, keystrokes, answers } = await measureHostsSurvey(server.url, BENCH_TOKEN, context, SURVEY_HOSTS, log);
    const figure = (values: readonly number[], p: number) => (values.length === 0 ? 'none' : `${percentile(values, p).toFixed(0)} ms`);
    await context.close();
    return [
      '| measure | value | target |',
      '|---|---|---|',
      `| time to the first painted row of the Hosts screen (${firstRow.length} fresh loads) | median ${percentile(firstRow, 50).toFixed(0)} ms, max ${Math.max(...firstRow).toFixed(0)} ms | < 1000 ms: ${Math.max(...firstRow) < 1000 ? 'met' : 'NOT met'} |`,
      `| search keystroke to updated list (${keystrokes.length} lists, 4 searches typed at 120 ms a key; a list still loading when the next key comes is not counted) | p50 ${figure(keystrokes, 50)}, p95 ${figure(keystrokes, 95)} | p95 < 100 ms: ${keystrokes.length > 0 && percentile(keystrokes, 95) < 100 ? 'met' : 'NOT met'} |`,
      `| the list's first page of each search prefix alone (fetch and parse in the same page, ${answers.length} prefixes) | p50 ${figure(answers, 50)}, p95 ${figure(answers, 95)} | |`,
    ].join('\n');
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Replaces the section between `<!-- name:start -->` and `<!-- name:end -->` of docs/benchmarks.md, or appends it under `heading`. */
function writeSection(name: string, body: string, heading: string): void {
  const file = path.join(ROOT, 'docs', 'benchmarks.md');
  const current = fs.readFileSync(file, 'utf8');
  const escaped = name.replaceAll('.', '\\.');
  const marked = new RegExp(`<!-- ${escaped}:start -->[\\s\\S]*<!-- ${escaped}:end -->`);
  const section = `<!-- ${name}:start -->\n${body}\n<!-- ${name}:end -->`;
  fs.writeFileSync(file, marked.test(current) ? current.replace(marked, () => section) : `${current.trimEnd()}\n\n${heading}\n\n${section}\n`);
  log(`written to ${file}`);
}

async function main(): Promise<void> {
  const browser = await launchBrowser();
  const machine = `headless Chromium ${browser.version()} at 1360×860 on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}; server and browser share the machine`;
  const day = new Date().toISOString().slice(0, 10);
  try {
    if (CASES.has('probes')) {
      const report = await probeCase(browser);
      process.stdout.write(`\n${report}\n`);
      if (options.write) {
        writeSection('ui.bench', `${report}\n\nMeasured ${day} with ${PROBES.toLocaleString('en')} probes, ${machine}.`, '## Renderer (`bench/ui.bench.ts`)\n\n```\nnpm run build:renderer && npm run bench:ui -- --write\n```');
      }
    }
    if (CASES.has('host-page')) {
      const report = await hostPageCase(browser);
      process.stdout.write(`\n${report}\n`);
      if (options.write) writeSection('ui.bench.hosts', `${report}\n\nMeasured ${day}, ${HOST_ROUNDS} rounds, ${machine}.`, '### Long values on the host page');
    }
    if (CASES.has('hosts-survey')) {
      const report = await hostsSurveyCase(browser);
      process.stdout.write(`\n${report}\n`);
      if (options.write) writeSection('ui.bench.survey', `${report}\n\nMeasured ${day} with ${SURVEY_HOSTS.toLocaleString('en')} hosts, ${machine}.`, '### The site survey\'s Hosts screen');
    }
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
