/**
 * Comparing two imports at scale (issue 24: "compare two imports < 2 s" at 1,000,000 hosts). Given
 * an open workspace of N hosts (bench/hosts.bench.ts builds and caches one), it records two
 * imports' worth of visits, as a site's EVE imports make them: each sees nearly every host (the
 * second misses 5 %), changes some (a role, a service, a certificate replaced) and brings new
 * ones; then it times the comparison of the two, and of a date before both with the last. All of
 * it in one transaction rolled back at the end: the cached workspace is left as it was.
 *
 * The lead calls `compareImports(services)` from bench:hosts; figures come back to be printed.
 */
import type { Services } from '../electron/server/store/services';
import type { JsonObject } from '../shared/resources';
import { checkHostEntry } from '../shared/api/hostIdentity';

export interface CompareFigures {
  readonly hosts: number;
  /** Hosts each import changed, and brought. */
  readonly changedPerImport: number;
  readonly newPerImport: number;
  /** Recording the two visits (their changes and seen hosts). */
  readonly recordMs: number;
  /** The comparison of the two imports, each run (ms). */
  readonly compareMs: readonly number[];
  /** The comparison from a date before both to the last. */
  readonly compareFromDateMs: number;
  /** What the two visits keep on disk: seen hosts (bytes of their blobs) and change rows (pages of host_visit_change). */
  readonly seenBytesPerVisit: number;
  readonly changeBytesPerVisit: number | undefined;
  readonly totals: Readonly<Record<string, number>>;
}

export interface CompareOptions {
  readonly changed?: number;
  readonly added?: number;
  readonly runs?: number;
}

const T = '2026-11-01T00:00:00.000000+00:00';

/** A changed identity of host `ip`: its stored one with a role, a service and a certificate of this import's. */
function changedEntry(ip: string, data: string, round: number): JsonObject {
  const identity = JSON.parse(data) as JsonObject;
  const services = Array.isArray(identity.services) ? identity.services.filter((s) => (s as JsonObject).port !== 8443) : [];
  services.push({ proto: 'tcp', port: 8443, values: [{ app_proto: 'tls', first_seen: T, last_seen: T, tls: { subject: `CN=svc-${round}`, issuerdn: 'CN=Bench CA', fingerprint: `fp:${round}` } }] });
  return { ip, host_id: { ...identity, roles: [{ name: round === 1 ? 'printer' : 'http proxy' }], services } };
}

export function compareImports(services: Services, options: CompareOptions = {}): CompareFigures {
  const { store, hosts, visits } = services;
  const db = store.db;
  const count = hosts.count();
  const changed = options.changed ?? Math.max(1, Math.round(count * 0.02));
  const added = options.added ?? Math.max(1, Math.round(count * 0.001));
  const runs = options.runs ?? 3;
  const pks = db.prepare('SELECT pk FROM host_id ORDER BY pk').pluck().all() as number[];
  const before = Date.now() * 1000 - 1;
  db.exec('BEGIN');
  try {
    const recordStarted = performance.now();
    const visitPks: number[] = [];
    for (const round of [1, 2]) {
      store.write(() => {
        const recording = visits.begin({ kind: 'eve', user: 'bench', files: [] });
        // Seen: every host (the second import misses one in twenty), without writing them again.
        for (let i = 0; i < pks.length; i++) if (round === 1 || i % 20 !== 0) recording.seen.add(pks[i]!);
        hosts.recordingInto(recording, () => {
          const rows = db.prepare('SELECT ip, data FROM host_id WHERE pk % ? = ? LIMIT ?').all(Math.max(1, Math.floor(count / changed)), round, changed) as { ip: string; data: string }[];
          for (const row of rows) {
            const entry = checkHostEntry(changedEntry(row.ip, row.data, round));
            if (entry.ok) hosts.save(entry.entry);
          }
          for (let i = 0; i < added; i++) {
            const entry = checkHostEntry({ ip: `fd00::${round}:${i.toString(16)}`, host_id: { first_seen: T, last_seen: T } });
            if (entry.ok) hosts.save(entry.entry);
          }
        });
        visitPks.push(visits.flush(recording)!);
      });
    }
    const recordMs = performance.now() - recordStarted;
    const [first, second] = visitPks as [number, number];
    const compareMs: number[] = [];
    let totals: Record<string, number> = {};
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const comparison = visits.compare(visits.resolve({ visit: first }, 'since'), visits.resolve({ visit: second }, 'until'), 500);
      compareMs.push(performance.now() - started);
      totals = { ...comparison.totals };
    }
    const dateStarted = performance.now();
    visits.compare(visits.resolve({ at: before }, 'since'), visits.latest(), 500);
    const compareFromDateMs = performance.now() - dateStarted;
    const seenBytes = db.prepare('SELECT sum(length(pks)) FROM host_visit_seen WHERE visit IN (?, ?)').pluck().get(first, second) as number;
    let changeBytes: number | undefined;
    try {
      changeBytes = db.prepare("SELECT sum(pgsize) FROM dbstat WHERE name = 'host_visit_change'").pluck().get() as number;
    } catch {
      changeBytes = undefined; // SQLite built without dbstat
    }
    return {
      hosts: count,
      changedPerImport: changed,
      newPerImport: added,
      recordMs,
      compareMs,
      compareFromDateMs,
      seenBytesPerVisit: Math.round(seenBytes / 2),
      changeBytesPerVisit: changeBytes === undefined ? undefined : Math.round(changeBytes / 2),
      totals,
    };
  } finally {
    db.exec('ROLLBACK');
  }
}
