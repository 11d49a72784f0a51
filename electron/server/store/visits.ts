/**
 * Imports and pulls as visits (issue 24 §2, migration 010): each one's row, what it changed host
 * by host and which hosts it saw, written inside the transaction of the write it records
 * (store/hosts.ts notes each identity written into a `VisitRecording`); the detail of visits
 * older than the last 50 pruned; the hosts a visit brought or changed as an SQL set for the host
 * list; and a comparison of two points. The pure part is shared/app/hostChanges.ts.
 */
import { formatDateTime } from '../../../shared/api/datetime';
import { decodePks, diffFacts, encodePks, identityFacts, netChanges, parseDiff, type FactChange, type PointText } from '../../../shared/app/hostChanges';
import { CHANGE_KINDS, type ChangeKind, type ComparePoint, type HostChange, type HostComparison, type Visit, type VisitFile, type VisitKind } from '../../../shared/app/hostSurvey';
import type { JsonObject } from '../../../shared/resources/fields';
import type { Store } from './store';

/** Visits whose detail (changes, hosts seen) is kept: any two of them can be compared. */
export const VISITS_KEPT = 50;

export interface VisitStart {
  readonly kind: VisitKind;
  /** A username, or `cli:<os user>` for the outpost command. */
  readonly user: string;
  readonly files?: readonly VisitFile[];
  readonly historyPk?: number | null;
}

/**
 * What one visit wrote, gathered while it writes (one transaction, or a pull's pages: each
 * page's part is flushed in that page's transaction).
 */
export class VisitRecording {
  pk: number | undefined;
  /** Hosts seen since the last flush, by pk. */
  readonly seen = new Set<number>();
  /** Hosts it changed since the last flush: pk → the facts that changed (JSON), null when only times or counts did. */
  readonly changed = new Map<number, string | null>();
  readonly created = new Set<number>();
  hostsNew = 0;
  hostsUpdated = 0;
  private parts = 0;

  constructor(readonly start: VisitStart) {}

  /** An identity written (or found the same): its pk, its data before (none: new) and after. */
  note(pk: number, before: string | undefined, after: string, changed: boolean): void {
    this.seen.add(pk);
    if (!changed && before === after) return;
    if (before === undefined) {
      if (!this.created.has(pk)) {
        this.created.add(pk);
        this.hostsNew++;
      }
      this.changed.set(pk, null);
      return;
    }
    if (this.created.has(pk)) return;
    const diff = before === after ? [] : diffFacts(identityFacts(parse(before)), identityFacts(parse(after)));
    const known = this.changed.get(pk);
    if (known === undefined && !this.changed.has(pk)) this.hostsUpdated++;
    const merged = [...parseDiff(known ?? null), ...diff];
    this.changed.set(pk, merged.length === 0 ? null : JSON.stringify(merged));
  }

  nextPart(): number {
    return this.parts++;
  }
}

function parse(data: string): JsonObject {
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as JsonObject) : {};
  } catch {
    return {};
  }
}

interface VisitRowSql {
  pk: number;
  kind: VisitKind;
  finished: number;
  user: string;
  files: string;
  hosts_new: number;
  hosts_updated: number;
  history_pk: number | null;
}

function visitOf(row: VisitRowSql): Visit {
  let files: VisitFile[] = [];
  try {
    const value: unknown = JSON.parse(row.files);
    if (Array.isArray(value)) files = value as VisitFile[];
  } catch {
    // a row written by this module is always JSON; none is shown for anything else
  }
  return { pk: row.pk, kind: row.kind, at: formatDateTime(row.finished), user: row.user, files, hostsNew: row.hosts_new, hostsUpdated: row.hosts_updated, historyPk: row.history_pk };
}

export class CompareError extends Error {
  constructor(
    /** The parameter at fault: `since` or `until`. */
    readonly param: 'since' | 'until',
    message: string,
  ) {
    super(message);
  }
}

/** A point resolved: the visits up to `pk` (0: none yet). */
interface Resolved {
  readonly pk: number;
  readonly point: ComparePoint;
}

export class Visits {
  constructor(private readonly store: Store) {}

  begin(start: VisitStart): VisitRecording {
    return new VisitRecording(start);
  }

  /**
   * Write what `recording` gathered since its last flush, inside the caller's transaction: its
   * row (made at its first flush, when `always` or once it changed a host), its changes, the
   * hosts it saw, `learned` of the hosts it brought; the detail beyond the last 50 pruned. Its pk,
   * or undefined while it has no row.
   */
  flush(recording: VisitRecording, always = true): number | undefined {
    const { store } = this;
    if (recording.pk === undefined) {
      if (!always && recording.changed.size === 0) return undefined;
      const { start } = recording;
      recording.pk = Number(
        store
          .command('INSERT INTO host_visit (kind, finished, user, files, history_pk) VALUES (?, ?, ?, ?, ?)')
          .run(start.kind, store.now(), start.user, JSON.stringify(start.files ?? []), start.historyPk ?? null).lastInsertRowid,
      );
    }
    const pk = recording.pk;
    store.command('UPDATE host_visit SET finished = ?, hosts_new = ?, hosts_updated = ? WHERE pk = ?').run(store.now(), recording.hostsNew, recording.hostsUpdated, pk);
    if (recording.seen.size > 0) {
      const sorted = Float64Array.from(recording.seen).sort();
      store.command('INSERT INTO host_visit_seen (visit, part, pks) VALUES (?, ?, ?)').run(pk, recording.nextPart(), encodePks(sorted));
      recording.seen.clear();
    }
    if (recording.changed.size > 0) {
      // A host it brought is told by its `learned`: a row only for the hosts it updated.
      const change = store.command('INSERT INTO host_visit_change (visit, host, diff) VALUES (?, ?, ?) ON CONFLICT DO UPDATE SET diff = excluded.diff');
      const created: number[] = [];
      for (const [host, diff] of recording.changed) {
        if (recording.created.has(host)) created.push(host);
        else change.run(pk, host, diff);
      }
      if (created.length > 0) store.command('UPDATE host_id SET learned = ? WHERE pk IN (SELECT value FROM json_each(?)) AND learned IS NULL').run(pk, JSON.stringify(created));
      recording.changed.clear();
    }
    this.prune();
    return pk;
  }

  /** The history entry that tells of the visit (written after it, in the same transaction). */
  setHistory(pk: number, historyPk: number): void {
    this.store.command('UPDATE host_visit SET history_pk = ? WHERE pk = ?').run(historyPk, pk);
  }

  /** The detail of visits beyond the last 50 removed (their rows stay). */
  private prune(): void {
    const { store } = this;
    const oldest = store.query('SELECT pk FROM host_visit ORDER BY pk DESC LIMIT 1 OFFSET ?').pluck().get(VISITS_KEPT - 1) as number | undefined;
    if (oldest === undefined) return;
    const pruned = store.query('SELECT pk FROM host_visit WHERE pk < ? AND pruned = 0').pluck().all(oldest) as number[];
    if (pruned.length === 0) return;
    const list = JSON.stringify(pruned);
    store.command('DELETE FROM host_visit_change WHERE visit IN (SELECT value FROM json_each(?))').run(list);
    store.command('DELETE FROM host_visit_seen WHERE visit IN (SELECT value FROM json_each(?))').run(list);
    store.command('UPDATE host_visit SET pruned = 1 WHERE pk IN (SELECT value FROM json_each(?))').run(list);
  }

  /** The visits, newest first, one page of them. */
  page(offset: number, limit: number): { count: number; visits: Visit[] } {
    const count = this.store.query('SELECT count(*) FROM host_visit').pluck().get() as number;
    const rows = this.store
      .query('SELECT pk, kind, finished, user, files, hosts_new, hosts_updated, history_pk FROM host_visit ORDER BY pk DESC LIMIT ? OFFSET ?')
      .all(limit, offset) as VisitRowSql[];
    return { count, visits: rows.map(visitOf) };
  }

  get(pk: number): Visit | undefined {
    const row = this.store.query('SELECT pk, kind, finished, user, files, hosts_new, hosts_updated, history_pk FROM host_visit WHERE pk = ?').get(pk) as VisitRowSql | undefined;
    return row && visitOf(row);
  }

  /** A point as the visits up to it: a visit, the last visit finished at or before a time, the last pull. */
  resolve(text: PointText, param: 'since' | 'until'): Resolved {
    const { store } = this;
    if ('visit' in text) {
      const visit = this.get(text.visit);
      if (!visit) throw new CompareError(param, `${param}: there is no import or pull ${text.visit}.`);
      return { pk: visit.pk, point: { visit: visit.pk, at: visit.at, label: label(visit) } };
    }
    if ('pull' in text) {
      const pk = store.query("SELECT max(pk) FROM host_visit WHERE kind = 'pull'").pluck().get() as number | null;
      if (pk === null) throw new CompareError(param, `${param}: no pull from the central server has changed hosts yet.`);
      const visit = this.get(pk)!;
      return { pk, point: { visit: pk, at: visit.at, label: `last pull (${label(visit)})` } };
    }
    const pk = (store.query('SELECT max(pk) FROM host_visit WHERE finished <= ?').pluck().get(text.at) as number | null) ?? 0;
    return { pk, point: { visit: null, at: formatDateTime(text.at), label: formatDateTime(text.at) } };
  }

  /** Are `count` hosts many enough that their first addresses are best found along the addresses' index (1 % of the hosts or more)? */
  private many(count: number): boolean {
    return count * 100 >= this.store.cachedCount('SELECT count(*) FROM host_id', () => this.store.query('SELECT count(*) FROM host_id').pluck().get() as number);
  }

  /** The last visit (the default `until`), or none. */
  latest(): Resolved {
    const pk = (this.store.query('SELECT max(pk) FROM host_visit').pluck().get() as number | null) ?? 0;
    const visit = pk === 0 ? undefined : this.get(pk)!;
    return { pk, point: visit ? { visit: pk, at: visit.at, label: label(visit) } : { visit: null, at: null, label: 'now' } };
  }

  /**
   * What changed between two points: hosts that visits in (since, until] brought, hosts known at
   * `since` that none of them saw, and the net change of the facts of the hosts known at `since`.
   * Totals are exact; the list holds at most `limit` changes, by kind then address.
   */
  compare(since: Resolved, until: Resolved, limit: number): HostComparison {
    if (since.pk > until.pk) throw new CompareError('since', `since: ${since.point.label} is after until (${until.point.label}).`);
    const { store } = this;
    const pruned = store.query('SELECT min(pk) FROM host_visit WHERE pk > ? AND pk <= ? AND pruned = 1').pluck().get(since.pk, until.pk) as number | null;
    if (pruned !== null) throw new CompareError('since', `since: import ${pruned} is older than the last ${VISITS_KEPT} imports and pulls, whose changes alone are kept; compare from a later one.`);
    const totals = Object.fromEntries(CHANGE_KINDS.map((kind) => [kind, 0])) as Record<ChangeKind, number>;
    const lists = new Map<ChangeKind, HostChange[]>();
    const range = [since.pk, until.pk] as const;

    // Hosts new: learned in the range (the index's range).
    totals.host_new = store.query('SELECT count(*) FROM host_id WHERE learned > ? AND learned <= ?').pluck().get(...range) as number;
    if (totals.host_new > 0 && limit > 0) {
      // Few: read by the index of `learned` and sorted; many: the first ones along the addresses' index.
      const sql = this.many(totals.host_new)
        ? 'SELECT ip FROM host_id WHERE +learned > ? AND +learned <= ? ORDER BY ip LIMIT ?'
        : 'SELECT ip FROM host_id WHERE learned > ? AND learned <= ? ORDER BY +ip LIMIT ?';
      lists.set('host_new', (store.query(sql).pluck().all(...range, limit) as string[]).map((ip) => ({ kind: 'host_new', ip, value: null, previous: null })));
    }

    // Hosts not seen since: known at `since` (learned up to it, or before visits were recorded), seen by none in the range.
    if (since.pk < until.pk) {
      // A bit per pk (a million hosts: 125 KB); the known hosts' pks read from the index of
      // `learned` as one text (twice as fast as a row each).
      const top = (store.query('SELECT max(pk) FROM host_id').pluck().get() as number | null) ?? 0;
      const seen = new Uint8Array((top >> 3) + 1);
      for (const blob of store.query('SELECT pks FROM host_visit_seen WHERE visit > ? AND visit <= ?').pluck().iterate(...range) as IterableIterator<Uint8Array>)
        decodePks(blob, (pk) => {
          if (pk <= top) seen[pk >> 3]! |= 1 << (pk & 7);
        });
      const isSeen = (pk: number) => (seen[pk >> 3]! & (1 << (pk & 7))) !== 0;
      const unseen: number[] = [];
      for (const sql of ['SELECT group_concat(pk) FROM host_id WHERE learned IS NULL', 'SELECT group_concat(pk) FROM host_id WHERE learned <= ?']) {
        const text = store.query(sql).pluck().get(...(sql.includes('?') ? [since.pk] : [])) as string | null;
        eachNumber(text ?? '', (pk) => {
          if (!isSeen(pk)) unseen.push(pk);
        });
      }
      totals.host_not_seen = unseen.length;
      if (unseen.length > 0 && limit > 0) {
        const ips: string[] = [];
        if (this.many(unseen.length)) {
          // Many: the first along the addresses' index (a few rows read per one kept).
          for (const [pk, ip, learned] of store.query('SELECT pk, ip, learned FROM host_id ORDER BY ip').raw().iterate() as IterableIterator<[number, string, number | null]>) {
            if (isSeen(pk) || (learned !== null && learned > since.pk)) continue;
            ips.push(ip);
            if (ips.length >= limit) break;
          }
        } else ips.push(...(store.query('SELECT ip FROM host_id WHERE pk IN (SELECT value FROM json_each(?)) ORDER BY +ip LIMIT ?').pluck().all(JSON.stringify(unseen), limit) as string[]));
        lists.set('host_not_seen', ips.map((ip) => ({ kind: 'host_not_seen', ip, value: null, previous: null })));
      }
    }

    // Facts of hosts known at `since`, composed over the range, visit by visit.
    const diffs = new Map<number, FactChange[][]>();
    for (const row of store
      .query('SELECT c.host, c.diff FROM host_visit_change c WHERE c.visit > ? AND c.visit <= ? AND c.diff IS NOT NULL ORDER BY c.visit')
      .iterate(...range) as IterableIterator<{ host: number; diff: string }>) {
      const list = diffs.get(row.host);
      if (list) list.push(parseDiff(row.diff));
      else diffs.set(row.host, [parseDiff(row.diff)]);
    }
    if (diffs.size > 0) {
      const known = store.query('SELECT pk, ip FROM host_id WHERE pk IN (SELECT value FROM json_each(?)) AND (learned IS NULL OR learned <= ?)').all(JSON.stringify([...diffs.keys()]), since.pk) as {
        pk: number;
        ip: string;
      }[];
      for (const { pk, ip } of known) {
        for (const change of netChanges(diffs.get(pk)!)) {
          totals[change.kind]++;
          const list = lists.get(change.kind) ?? [];
          list.push({ kind: change.kind, ip, value: change.value, previous: change.previous });
          lists.set(change.kind, list);
        }
      }
    }

    const changes: HostChange[] = [];
    for (const kind of CHANGE_KINDS) {
      const list = (lists.get(kind) ?? []).sort((a, b) => (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : (a.value ?? '') < (b.value ?? '') ? -1 : 1));
      changes.push(...list.slice(0, limit - changes.length));
    }
    const total = CHANGE_KINDS.reduce((sum, kind) => sum + totals[kind], 0);
    return { since: since.point, until: until.point, totals, changes, truncated: total > changes.length };
  }
}

/** Each number of a comma list (`group_concat`'s), read without splitting it into strings. */
function eachNumber(text: string, each: (n: number) => void): void {
  let n = 0;
  let digits = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 44) {
      if (digits) each(n);
      n = 0;
      digits = false;
    } else {
      n = n * 10 + (c - 48);
      digits = true;
    }
  }
  if (digits) each(n);
}

function label(visit: Visit): string {
  const what = visit.kind === 'eve' ? 'EVE import' : visit.kind === 'host_file' ? 'host file import' : 'pull';
  return `${what} ${visit.pk} (${visit.at})`;
}

/**
 * The hosts a visit brought (`new`: their `learned` is it) or changed (`changed`: those, and its
 * rows in `host_visit_change`), as an SQL set of `host_id` pks for the host list's filter:
 * `pk IN (${sql})`, with `params` bound by name (`@visit_pk`). The set is empty for a visit that
 * does not exist; for a visit older than the last 50 (its detail pruned), `changed` holds only the
 * hosts it brought. Both are read through an index.
 */
export function visitHostSet(visitPk: number, change: 'new' | 'changed'): { sql: string; params: Record<string, number> } {
  return change === 'new'
    ? { sql: 'SELECT pk FROM host_id WHERE learned = @visit_pk', params: { visit_pk: visitPk } }
    : { sql: 'SELECT pk FROM host_id WHERE learned = @visit_pk UNION ALL SELECT host FROM host_visit_change WHERE visit = @visit_pk', params: { visit_pk: visitPk } };
}
