/**
 * One merge rule (issue 22): the evidence SQL merges (staging a batch, an import moved into the
 * evidence) and the JavaScript gathering (shared/eve/merge.ts) give the same values for the same
 * observations, whatever their order and however they are cut into batches and imports; ties on
 * the last seen go to the greater item byte for byte, text that is not in the Basic Multilingual
 * Plane included. The addresses an import marks as changed are exactly those whose evidence it
 * changed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, test } from 'vitest';
import { EvidenceBatch, type GatheredValue } from '../../shared/eve/accumulate';
import { compareUtf8, mergeObservation } from '../../shared/eve/merge';
import { openWorkspace, type OpenedWorkspace } from '../../electron/workspaces/openWorkspace';
import { prng } from '../helpers/prng';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0).reverse()) cleanup();
});

function workspace(): OpenedWorkspace {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-merge-'));
  const opened = openWorkspace({ file: path.join(dir, 'ws.sqlite3'), instance: { name: 'outpost', version: 'test', address: '127.0.0.1' } });
  cleanups.push(() => {
    opened.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return opened;
}

describe('text compared as SQLite compares it', () => {
  test('byte for byte in UTF-8, a surrogate pair after the last characters of the Basic Multilingual Plane', () => {
    const random = prng(1);
    const alphabet = ['a', 'b', 'é', '\u00ff', '\ud7ff', '\ue000', '\uffef', '\u{1f600}', '\u{10348}', '"', '\\', ''];
    for (let n = 0; n < 2000; n++) {
      const word = () => Array.from({ length: Math.floor(random() * 4) }, () => alphabet[Math.floor(random() * alphabet.length)]!).join('');
      const [a, b] = [word(), word()];
      expect(Math.sign(compareUtf8(a, b)), `${JSON.stringify(a)} ${JSON.stringify(b)}`).toBe(Math.sign(Buffer.compare(Buffer.from(a), Buffer.from(b))));
    }
  });
});

describe('the evidence merged in SQL and in JavaScript', () => {
  test('the same values and addresses for any order and any cut into batches and imports; the changed addresses are those changed', () => {
    for (let seed = 1; seed <= 12; seed++) {
      const random = prng(seed);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      // Few addresses, keys and instants: values meet again and ties on the last seen are common.
      const observations: GatheredValue[] = Array.from({ length: 200 }, () => {
        const [first, last] = [pick([1, 2, 3, 5, 8]), pick([3, 5, 8, 13])].sort((a, b) => a - b) as [number, number];
        return {
          ip: pick(['10.0.0.1', '10.0.0.2', '10.0.0.3']),
          list: pick(['hostname', 'services.tls'] as const),
          key: pick(['a', 'b']),
          item: { v: pick(['x', 'y', 'Y', 'é', '\u{1f600}', '\uffef', 'xx']) },
          first,
          last,
        };
      });
      // The oracle: every observation folded by the rule, in a shuffled order.
      const shuffled = [...observations].sort(() => random() - 0.5);
      const oracle = new Map<string, GatheredValue>();
      for (const seen of shuffled) {
        const id = `${seen.ip}|${seen.list}|${seen.key}`;
        const known = oracle.get(id);
        if (known) mergeObservation(known, seen);
        else oracle.set(id, { ...seen });
      }
      // SQL: the observations in imports, each staged in batches of one to a few (each batch gathered in JS first).
      const opened = workspace();
      const { evidence, store } = opened.services;
      const pendingSets: Set<string>[] = [];
      for (let at = 0; at < observations.length; ) {
        const importSize = 1 + Math.floor(random() * 80);
        const part = observations.slice(at, at + importSize);
        at += importSize;
        // What this import changes, worked out in JavaScript from the evidence before it.
        const before = new Map((store.db.prepare('SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence').all() as { ip: string; list: string; key: string; item: string; first_seen: number; last_seen: number }[]).map((r) => [`${r.ip}|${r.list}|${r.key}`, r]));
        const changed = new Set<string>();
        for (const seen of part) {
          const known = before.get(`${seen.ip}|${seen.list}|${seen.key}`);
          const text = JSON.stringify(seen.item);
          if (!known || seen.first < known.first_seen || seen.last > known.last_seen || (seen.last === known.last_seen && compareUtf8(text, known.item) > 0)) changed.add(seen.ip);
        }
        pendingSets.push(changed);
        const importPk = evidence.begin();
        for (let k = 0; k < part.length; ) {
          const batchSize = 1 + Math.floor(random() * 5);
          const batch = new EvidenceBatch();
          batch.merge(part.slice(k, k + batchSize), part.slice(k, k + batchSize).map((v) => ({ ip: v.ip, hits: 0, first: v.first, last: v.last })));
          evidence.stage(importPk, { values: batch.staged(), hosts: batch.hosts.values() });
          k += batchSize;
        }
        store.write(() => evidence.commit(importPk, []));
        const pending = new Set(store.db.prepare('SELECT ip FROM host_identity_pending').pluck().all() as string[]);
        // An address's own times follow its values' here (no alerts): its mark is exactly a value changed.
        expect(pending, `seed ${seed}`).toEqual(changed);
        store.db.exec('DELETE FROM host_identity_pending');
      }
      const stored = store.db.prepare('SELECT ip, list, key, item, first_seen, last_seen FROM host_evidence ORDER BY ip, list, key').all();
      const expected = [...oracle.values()]
        .map((v) => ({ ip: v.ip, list: v.list, key: v.key, item: JSON.stringify(v.item), first_seen: v.first, last_seen: v.last }))
        .sort((a, b) => compareUtf8(`${a.ip}\u0000${a.list}\u0000${a.key}`, `${b.ip}\u0000${b.list}\u0000${b.key}`));
      expect(stored, `seed ${seed}`).toEqual(expected);
    }
  });
});
