/**
 * The UI benchmark's host-page case (issue 23 §5): a host whose TLS subject, issuer, fingerprint
 * and HTTP server are 100 KB each, against a baseline host of ordinary values, both in one fresh
 * workspace of the same server, opened in the same page of the app in turn. Measured: from the
 * hash change that opens the host to the frame after its identity (heading and services table)
 * is in the page and laid out, and the longest task the main thread ran meanwhile; after one
 * round of both that is not counted.
 */
import type { BrowserContext } from 'playwright-core';

export const LONG_VALUE_CHARS = 100_000;
const BASELINE_IP = '10.99.0.1';
const LONG_IP = '10.99.0.2';

/**
 * `prefix` then `unit` repeated to `chars` characters. One letter repeated, no space: Chromium's
 * line breaking of such a run grows about with the square of its length, and with the letter
 * (8,000 × "A" or "T" took 600 ms in a 500 px box with `overflow-wrap: anywhere`, most other
 * letters 2-40 ms): the values use the slow letters.
 */
export function longValue(prefix: string, unit: string, chars = LONG_VALUE_CHARS): string {
  return (prefix + unit.repeat(Math.ceil(chars / unit.length))).slice(0, chars);
}

function hostEntry(ip: string, values: { subject: string; issuerdn: string; fingerprint: string; server: string }) {
  const seen = { first_seen: '2026-03-02T07:42:10.218331+00:00', last_seen: '2026-03-19T18:03:55.902114+00:00' };
  return {
    ip,
    hits: 0,
    host_id: {
      ...seen,
      hostname: [{ host: `host-${ip.replaceAll('.', '-')}.example`, ...seen }],
      services: [
        { proto: 'tcp', port: 443, values: [{ app_proto: 'tls', ...seen, tls: { subject: values.subject, issuerdn: values.issuerdn, fingerprint: values.fingerprint } }] },
        { proto: 'tcp', port: 80, values: [{ app_proto: 'http', ...seen, http: { server: values.server } }] },
      ],
    },
  };
}

/** The two hosts: ordinary values, and the same fields at 100 KB each. */
export function benchHosts() {
  return [
    hostEntry(BASELINE_IP, {
      subject: 'CN=mail.acme-logistics.example',
      issuerdn: "C=US, O=Let's Encrypt, CN=R11",
      fingerprint: '3c:91:0e:5b:7a:12:f4:aa:09:c2:6d:18:44:e0:b7:5f:93:21:ac:60',
      server: 'nginx/1.22.1',
    }),
    hostEntry(LONG_IP, {
      subject: longValue('CN=', 'A'),
      issuerdn: longValue('C=US, O=', 'T'),
      fingerprint: longValue('3c:', 'U'),
      server: longValue('nginx/', 'W'),
    }),
  ];
}

/** Records long tasks from the page's start (a task that freezes the page is one long task). */
export const LONG_TASK_SCRIPT = `
window.__longTasks = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) window.__longTasks.push({ start: e.startTime, duration: e.duration }); }).observe({ type: 'longtask', buffered: true });
`;

/** Opens `ip`'s host page by its hash and resolves, in the page, with the time to its painted identity and the longest task meanwhile. */
const openHostScript = (ip: string) => `new Promise((resolve) => {
  const t0 = performance.now();
  const painted = () => {
    const title = document.querySelector('.host-identity #host-title');
    return title && title.textContent === ${JSON.stringify(ip)} && document.querySelector('.host-identity .service-details');
  };
  // rAF runs before the frame's style and layout; a task queued from it runs after them.
  const done = () => requestAnimationFrame(() => setTimeout(() => {
    const t1 = performance.now();
    // Long-task entries are delivered after the task: read them a moment later.
    setTimeout(() => {
      const longest = window.__longTasks.filter((t) => t.start + t.duration > t0 && t.start < t1).reduce((m, t) => Math.max(m, t.duration), 0);
      resolve({ ms: t1 - t0, longestTask: longest });
    }, 200);
  }, 0));
  const observer = new MutationObserver(() => { if (painted()) { observer.disconnect(); done(); } });
  observer.observe(document.body, { subtree: true, childList: true, characterData: true });
  location.hash = ${JSON.stringify(`#/hosts/${ip}`)};
})`;

export interface Opened {
  readonly ms: number;
  readonly longestTask: number;
  /** The same host's API answer alone, fetched and parsed in the page: what the server and the transfer take. */
  readonly answerMs: number;
}

export interface HostPageFigures {
  readonly baseline: readonly Opened[];
  readonly long: readonly Opened[];
  readonly domChars: number;
}

const fetchHostScript = (ip: string) => `(async () => {
  const t0 = performance.now();
  await (await fetch(${JSON.stringify(`/rest/appliances/host_id/${ip}`)}, { credentials: 'same-origin', headers: { Accept: 'application/json' } })).json();
  return performance.now() - t0;
})()`;

/** Imports the two hosts into the server's workspace, then opens each `rounds` times in turn. */
export async function measureHostPage(url: string, token: string, context: BrowserContext, rounds: number, log: (line: string) => void): Promise<HostPageFigures> {
  const answer = await fetch(`${url}/rest/appliances/host_id/import/`, {
    method: 'POST',
    headers: { Authorization: `Token ${token}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(benchHosts()),
  });
  if (answer.status !== 201) throw new Error(`the host import answered ${answer.status}: ${(await answer.text()).slice(0, 500)}`);
  const page = await context.newPage();
  page.setDefaultTimeout(600_000);
  await page.addInitScript(LONG_TASK_SCRIPT);
  await page.goto(`${url}/#/hosts`);
  await page.getByText('Type an address, or pick a known host').waitFor();
  const baseline: Opened[] = [];
  const long: Opened[] = [];
  let domChars = 0;
  // Round 0 warms the page up (the screen's code and the browser's caches): not counted.
  for (let round = 0; round <= rounds; round++) {
    for (const [ip, into] of [
      [BASELINE_IP, baseline],
      [LONG_IP, long],
    ] as const) {
      const opened = (await page.evaluate(openHostScript(ip))) as { ms: number; longestTask: number };
      const answerMs = Number(await page.evaluate(fetchHostScript(ip)));
      if (round > 0) into.push({ ...opened, answerMs });
      if (ip === LONG_IP) domChars = Number(await page.evaluate('document.documentElement.outerHTML.length'));
      await page.evaluate('location.hash = "#/hosts"');
      await page.getByText('Type an address, or pick a known host').waitFor();
    }
    if (round > 0) log(`  round ${round}: baseline ${baseline.at(-1)!.ms.toFixed(0)} ms, long values ${long.at(-1)!.ms.toFixed(0)} ms`);
  }
  await page.close();
  return { baseline, long, domChars };
}
