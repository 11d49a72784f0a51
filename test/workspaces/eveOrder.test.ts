/**
 * The order of a log's lines and the way it is cut into files do not change what an import
 * makes of it (docs/eve.md, "Incremental and idempotent"): the lines of a real sample shuffled,
 * cut at random into 1-4 files and imported in one call or one call per file, give the
 * identities of the file imported once, and every alert counts once.
 *
 * The expected identities are those of the same sample imported whole (the program's output,
 * used here only as the reference the other imports must equal); the expected hits are counted
 * from the sample's alert events by the few lines of `alertHits` below, independently of the import.
 * A failure names its seed: `prng(seed)` replays it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { fileSources, importEve } from '../../electron/workspaces/eveImport';
import type { OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import type { ApiRequest } from '../../electron/server/http/types';
import { prng } from '../helpers/prng';
import { SAMPLES_DIR } from '../helpers/workplace';
import { tempWorkspaces } from '../helpers/tempWorkspaces';

const SAMPLE = path.join(SAMPLES_DIR, 'eve', 'alaajili-EVE-Json-Parser-eve.json');
const SEEDS = Array.from({ length: 20 }, (_, i) => i + 1);

const { tempDir, workspace } = tempWorkspaces('outpost-eve-order-');

async function importPaths(opened: OpenedWorkspace, paths: string[]): Promise<void> {
  const { sources, ignored } = fileSources(paths);
  await importEve(opened.services, { sources, ignored });
}

/** Every served entry (all pages of GET host_id/), by address. */
async function served(opened: OpenedWorkspace): Promise<Map<string, { ip: string; hits: number; host_id: unknown }>> {
  const out = new Map<string, { ip: string; hits: number; host_id: unknown }>();
  for (let page = 1; ; page++) {
    const request: ApiRequest = {
      method: 'GET',
      path: '/rest/appliances/host_id/',
      rawQuery: `page_size=1000&ordering=ip&page=${page}`,
      headers: { authorization: `Token ${opened.adminToken}`, host: 'localhost' },
      body: Buffer.alloc(0),
      scheme: 'http',
      remoteAddress: '127.0.0.1',
    };
    const answer = await opened.api(request);
    expect(answer.status).toBe(200);
    const body = JSON.parse(String(answer.body)) as { next: string | null; results: { ip: string; hits: number; host_id: unknown }[] };
    for (const entry of body.results) out.set(entry.ip, entry);
    if (body.next === null) return out;
  }
}

/** The alerts each address takes part in, counted from the log's alert events (one per address of each). */
function alertHits(lines: readonly string[]): Map<string, number> {
  const hits = new Map<string, number>();
  for (const line of lines) {
    const event = JSON.parse(line) as { event_type: string; src_ip: string; dest_ip: string };
    if (event.event_type !== 'alert') continue;
    for (const ip of new Set([event.src_ip, event.dest_ip])) hits.set(ip, (hits.get(ip) ?? 0) + 1);
  }
  return hits;
}

/** The addresses whose entries differ (the first few, with both entries). */
function differences(expected: Map<string, unknown>, got: Map<string, unknown>): unknown[] {
  const ips = [...new Set([...expected.keys(), ...got.keys()])].sort();
  const differing = ips.filter((ip) => JSON.stringify(expected.get(ip)) !== JSON.stringify(got.get(ip)));
  const shown: unknown[] = differing.slice(0, 3).map((ip) => ({ ip, expected: expected.get(ip) ?? null, got: got.get(ip) ?? null }));
  return differing.length > 3 ? [...shown, `… and ${differing.length - 3} more: ${differing.slice(3).join(', ')}`] : shown;
}

describe('the order of the lines and the cut into files change nothing', () => {
  test('shuffled, cut into 1-4 files, imported at once or one by one: the identities of the log imported whole, each alert counted once', async () => {
    const lines = fs
      .readFileSync(SAMPLE, 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '');
    const whole = workspace();
    await importPaths(whole, [SAMPLE]);
    const reference = await served(whole);
    // Every alert counted once: the hits served are those counted from the log itself.
    const expectedHits = alertHits(lines);
    expect([...reference.values()].filter((e) => e.hits > 0).map((e) => [e.ip, e.hits])).toEqual([...reference.keys()].filter((ip) => expectedHits.has(ip)).map((ip) => [ip, expectedHits.get(ip)]));
    expect([...expectedHits.keys()].filter((ip) => !reference.has(ip))).toEqual([]);

    for (const seed of SEEDS) {
      const random = prng(seed);
      const order = [...lines];
      for (let i = order.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [order[i], order[j]] = [order[j]!, order[i]!];
      }
      const fileCount = 1 + Math.floor(random() * 4);
      const cuts = new Set<number>();
      while (cuts.size < fileCount - 1) cuts.add(1 + Math.floor(random() * (order.length - 1)));
      const bounds = [0, ...[...cuts].sort((a, b) => a - b), order.length];
      const dir = tempDir();
      const files = bounds.slice(1).map((end, i) => {
        const file = path.join(dir, `part-${i}.json`);
        fs.writeFileSync(file, order.slice(bounds[i], end).map((line) => `${line}\n`).join(''));
        return file;
      });
      const oneCall = random() < 0.5;
      const opened = workspace();
      if (oneCall) await importPaths(opened, files);
      else for (const file of files) await importPaths(opened, [file]);
      const got = await served(opened);
      const how = `seed ${seed}: ${fileCount} file(s) cut at ${[...cuts].sort((a, b) => a - b).join(', ') || 'nowhere'}, imported ${oneCall ? 'in one call' : 'one call per file'}`;
      expect.soft([...got.values()].filter((e) => e.hits !== (expectedHits.get(e.ip) ?? 0)).map((e) => [e.ip, e.hits, expectedHits.get(e.ip) ?? 0]), `${how}: hits [ip, served, alerts in the log]`).toEqual([]);
      expect.soft(differences(reference, got), `${how}: entries that differ from the whole log's`).toEqual([]);
    }
  }, 60_000);
});
