/**
 * `outpost sync --plan [--json] [--out FILE]`, `outpost sync --apply FILE` and `--push-mode`
 * (issue 25 §2, docs/sync.md "Review before push"), run as a user runs them against the
 * reference server: the plan printed and saved, nothing sent; a saved plan applied, an entry a
 * colleague changed since stopped (exit 2); a hostile plan file refused with exit 1, nothing sent.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ReviewPlan } from '../../shared/sync/review';
import type { Client } from '../helpers/http';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { writeOffline } from '../helpers/sync';
import { outpost } from '../helpers/syncCli';

const T = '/rest/appliances/vendor_probe_template/';
const P = '/rest/appliances/vendor_probe/';
const RULESETS = '/rest/rules/ruleset/';

let remote: ReferenceServer;
const folders: string[] = [];

beforeAll(async () => {
  remote = await startReference();
}, 60_000);

afterAll(async () => {
  await remote?.stop();
  for (const dir of folders) fs.rmSync(dir, { recursive: true, force: true });
});

let n = 0;
function unique(prefix: string): string {
  n++;
  return `${prefix}-${n}`;
}

/** A data folder with remote "central" and workspace "site" bound to it (after review), filled by a sync. */
async function boundFolder(): Promise<string> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-plan-cli-'));
  folders.push(data);
  expect((await outpost(['remote', 'add', 'central', remote.url, '--token', remote.token, '--data', data])).status).toBe(0);
  const created = await outpost(['workspace', 'create', 'site', '--remote', 'central', '--data', data]);
  expect(created.status, created.stderr).toBe(0);
  expect(created.stdout).toContain('changes sent after review');
  expect((await sync(data)).status).toBe(0);
  return data;
}

/** Local writes (the CLI has none): the workspace opened in this process for a moment. */
const offline = (data: string, write: (api: Client) => Promise<void>) => writeOffline(remote, data, write);

const sync = (data: string, ...extra: string[]) => outpost(['sync', '--workspace', 'site', '--data', data, ...extra]);

async function centralProbe(fields: Record<string, unknown> = {}): Promise<{ pk: number; name: string }> {
  const created = await remote.api.post(P, { name: unique('cli-probe'), address: `10.6.0.${n}`, location: 'hall', ...fields });
  expect(created.status, created.text).toBe(201);
  return created.json();
}

describe('outpost sync --plan', () => {
  test('prints per entry its label and op, each field now → after, conflicts, and what a template change reaches; sends nothing', async () => {
    const template = (await remote.api.post(T, { name: unique('cli-fleet'), capture_threads: 2 })).json();
    const followers = [];
    for (let i = 0; i < 3; i++) followers.push(await centralProbe({ parent_tmpl: template.pk }));
    await centralProbe({ parent_tmpl: template.pk, overriden_fields: ['capture_threads'], capture_threads: 8 });
    const probe = await centralProbe();
    const data = await boundFolder();
    await offline(data, async (api) => {
      expect((await api.patch(`${T}${template.pk}/`, { capture_threads: 4 })).status).toBe(200);
      expect((await api.patch(`${P}${probe.pk}/`, { location: 'rack 1' })).status).toBe(200);
    });
    expect((await remote.api.patch(`${P}${probe.pk}/`, { location: 'rack 9' })).status).toBe(200);

    const shown = await sync(data, '--plan');
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`update vendor probe template "${template.name}" \\(pk ${template.pk}\\): send`));
    expect(shown.stdout).toContain('    capture_threads: 2 → 4');
    const names = followers.map((p) => p.name).sort();
    expect(shown.stdout).toContain(`    this changes capture_threads on 3 probes: ${names.join(', ')}`);
    expect(shown.stdout).toMatch(new RegExp(`update vendor probe "${probe.name}" \\(pk ${probe.pk}\\): conflict`));
    expect(shown.stdout).toContain('    location: "rack 9" → "rack 1"  CONFLICT');
    expect(shown.stdout).toContain('nothing was sent');
    expect((await remote.api.get(`${T}${template.pk}/`)).json().capture_threads).toBe(2);

    const asJson = await sync(data, '--plan', '--json');
    expect(asJson.status).toBe(0);
    const plan = JSON.parse(asJson.stdout) as ReviewPlan;
    expect(plan).toMatchObject({ format: 'outpost-sync-plan', version: 1, workspace: 'site', remote: { name: 'central', url: remote.url } });
    expect(plan.entries.map((e) => [e.pk, e.outcome])).toEqual([
      [template.pk, 'send'],
      [probe.pk, 'conflict'],
    ]);
  });

  test('a name with control characters is shown escaped, never raw', async () => {
    const data = await boundFolder();
    await offline(data, async (api) => {
      expect((await api.post(RULESETS, { name: 'evil\u001b[2Jname', descr: 'x\u0007' })).status).toBe(201);
    });
    const shown = await sync(data, '--plan');
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
    expect(shown.stdout).toContain('evil\\u001b[2Jname');
  });
});

describe('outpost sync --apply', () => {
  test('sends exactly the saved entries; one a colleague changed since the plan is not sent (exit 2) and waits', async () => {
    const first = await centralProbe();
    const second = await centralProbe();
    const data = await boundFolder();
    const later = unique('not-in-plan');
    await offline(data, async (api) => {
      await api.patch(`${P}${first.pk}/`, { location: 'rack 1' });
      await api.patch(`${P}${second.pk}/`, { location: 'rack 2' });
    });
    const file = path.join(data, 'plan.json');
    const saved = await sync(data, '--plan', '--out', file);
    expect(saved.status, saved.stderr).toBe(0);
    expect(saved.stdout).toContain(`saved to ${file}`);
    const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as ReviewPlan;
    // A change made after the plan is not in it, and is not sent by it.
    await offline(data, async (api) => {
      expect((await api.post(RULESETS, { name: later })).status).toBe(201);
    });
    expect((await remote.api.patch(`${P}${first.pk}/`, { location: 'rack 7' })).status).toBe(200);

    const applied = await sync(data, '--apply', file);
    expect(applied.status, applied.stderr).toBe(2);
    const [firstSeq, secondSeq] = plan.entries.map((e) => e.seq);
    expect(applied.stdout).toContain(`sent 1 entry of 2: ${secondSeq}`);
    expect(applied.stdout).toContain(`  ${firstSeq}: changed there: The central server changed since the review: review it again.`);
    expect((await remote.api.get(`${P}${first.pk}/`)).json().location).toBe('rack 7');
    expect((await remote.api.get(`${P}${second.pk}/`)).json().location).toBe('rack 2');
    expect((await remote.api.get(`${RULESETS}?name=${later}`)).json().count).toBe(0);
    const left = JSON.parse((await outpost(['outbox', '--json', '--workspace', 'site', '--data', data])).stdout) as { seq: number }[];
    expect(left.map((e) => e.seq)).toEqual([firstSeq, expect.any(Number)]);
  });

  test('a hostile plan file is refused with exit 1 and a message; nothing is sent', async () => {
    const probe = await centralProbe();
    const data = await boundFolder();
    await offline(data, async (api) => {
      await api.patch(`${P}${probe.pk}/`, { location: 'rack 4' });
    });
    const file = path.join(data, 'plan.json');
    expect((await sync(data, '--plan', '--out', file)).status).toBe(0);
    const plan = JSON.parse(fs.readFileSync(file, 'utf8')) as ReviewPlan;
    const hex = 'c'.repeat(64);
    const cases: [string, string | (() => void), RegExp][] = [
      ['bad.json', '{"format": "outpost-sync-plan", ', /is refused: it is not JSON/],
      ['other.json', JSON.stringify({ ...plan, format: 'something-else' }), /is refused: it is not a sync plan/],
      ['v2.json', JSON.stringify({ ...plan, version: 2 }), /is refused: it is a sync plan of another version/],
      ['negative.json', JSON.stringify({ ...plan, entries: [{ seq: -3, hash: hex, central: hex }] }), /entry 1: seq must be a positive whole number/],
      ['short-hash.json', JSON.stringify({ ...plan, entries: [{ ...plan.entries[0], hash: 'abc' }] }), /entry 1: hash must be 64 lowercase hex digits/],
      ['twice.json', JSON.stringify({ ...plan, entries: [plan.entries[0], plan.entries[0]] }), /is named twice/],
      ['elsewhere.json', JSON.stringify({ ...plan, workspace: 'another' }), /is of workspace "another"/],
      [
        'huge.json',
        () => {
          // Sparse: its size is what is refused, before a byte is read.
          const fd = fs.openSync(path.join(data, 'huge.json'), 'w');
          fs.ftruncateSync(fd, 65 * 1024 * 1024);
          fs.closeSync(fd);
        },
        /is larger than 64 MiB/,
      ],
      ['missing.json', () => undefined, /cannot read the plan file .*missing\.json: ENOENT/],
    ];
    for (const [name, content, message] of cases) {
      const target = path.join(data, name);
      if (typeof content === 'string') fs.writeFileSync(target, content);
      else content();
      const result = await sync(data, '--apply', target);
      expect(result.status, name).toBe(1);
      expect(result.stderr, name).toMatch(message);
    }
    // Well formed but not the reviewed entry: stopped, not sent (exit 2).
    const forged = path.join(data, 'forged.json');
    fs.writeFileSync(forged, JSON.stringify({ ...plan, entries: [{ ...plan.entries[0], hash: hex }] }));
    const stopped = await sync(data, '--apply', forged);
    expect(stopped.status).toBe(2);
    expect(stopped.stdout).toContain(`  ${plan.entries[0]!.seq}: changed here: Changed here since the review: review it again.`);
    expect((await remote.api.get(`${P}${probe.pk}/`)).json().location).toBe('hall');
  });
});

describe('outpost sync --push-mode and workspace create --push', () => {
  test('the mode is set and said; a wrong one is a usage error', async () => {
    const data = await boundFolder();
    const set = await sync(data, '--push-mode', 'automatic');
    expect(set.status, set.stderr).toBe(0);
    expect(set.stdout).toContain('sent automatically');
    const status = JSON.parse((await sync(data, '--json')).stdout);
    expect(status.status.pushMode).toBe('automatic');
    expect((await sync(data, '--push-mode', 'never')).status).toBe(1);
    expect((await sync(data, '--plan', '--push-mode', 'review')).status).toBe(1);

    const eager = await outpost(['workspace', 'create', 'eager', '--remote', 'central', '--push', 'automatic', '--data', data]);
    expect(eager.stdout).toContain('changes sent automatically');
    const wrong = await outpost(['workspace', 'create', 'odd', '--remote', 'central', '--push', 'often', '--data', data]);
    expect(wrong.status).toBe(1);
    expect(wrong.stderr).toContain('--push is review or automatic, not "often"');
  });
});
