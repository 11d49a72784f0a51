/**
 * What the probe list's override markers show, read from the probes themselves (the appliances
 * view the list pages does not carry `overriden_fields`). Rows in view say which probes they
 * want; once no new row has come into view for a short pause (typing a search or scrolling reads
 * nothing), the probes still wanted are read, a few at a time. An answer is kept for as long as
 * the probe's `updated` stays the same (any write to the probe changes it).
 *
 * One timer for the whole list, not one per row: a row coming into view costs a map update.
 */
import type { JsonObject } from '../../../shared/resources';
import { api } from '../api/client';
import { isAbortError } from '../data/errors';
import { VENDOR_PROBES_PATH } from './templatesFields';

/** What the marker shows of one probe. */
export interface ProbeOverrides {
  readonly template: boolean;
  readonly overrides: readonly string[];
}

/** A pause long enough that typing a search (a key every ~120 ms) or scrolling reads nothing. */
const SETTLE_MS = 400;
const AT_ONCE = 4;

interface Wanted {
  readonly pk: string;
  /** Rows in view that show this probe (a row can be rendered twice for a moment). */
  rows: number;
  /** Set while its read is under way. */
  reading?: AbortController;
  /** Its read failed (a probe deleted meanwhile): no marker, no new read while it stays in view. */
  failed?: boolean;
}

const known = new Map<string, ProbeOverrides>();
const wanted = new Map<string, Wanted>();
const listeners = new Map<string, Set<() => void>>();
let settleTimer: number | undefined;
let running = 0;
const queue: string[] = [];

/** The key of a probe's answer: its pk and the time it was last written. */
export function overridesKey(row: JsonObject): string | undefined {
  return row.type === 'vendor' ? `${String(row.pk)}:${String(row.updated)}` : undefined;
}

export function knownOverrides(key: string): ProbeOverrides | undefined {
  return known.get(key);
}

export function subscribeOverrides(key: string, listener: () => void): () => void {
  const set = listeners.get(key) ?? new Set();
  set.add(listener);
  listeners.set(key, set);
  return () => {
    set.delete(listener);
    if (set.size === 0) listeners.delete(key);
  };
}

/** A row shows the probe of `key`: read it after the pause unless known. Returns the row's release. */
export function wantOverrides(key: string, pk: string): () => void {
  const entry = wanted.get(key) ?? { pk, rows: 0 };
  entry.rows++;
  wanted.set(key, entry);
  if (!known.has(key)) restartPause();
  return () => {
    entry.rows--;
    if (entry.rows > 0) return;
    wanted.delete(key);
    entry.reading?.abort();
  };
}

function restartPause(): void {
  window.clearTimeout(settleTimer);
  settleTimer = window.setTimeout(readWanted, SETTLE_MS);
}

function readWanted(): void {
  settleTimer = undefined;
  for (const [key, entry] of wanted) {
    if (!known.has(key) && !entry.reading && !entry.failed && !queue.includes(key)) queue.push(key);
  }
  pump();
}

function pump(): void {
  while (running < AT_ONCE && queue.length > 0) {
    const key = queue.shift()!;
    const entry = wanted.get(key);
    // Scrolled out of view while it waited: not read.
    if (!entry || known.has(key)) continue;
    running++;
    void read(key, entry).finally(() => {
      running--;
      pump();
    });
  }
}

async function read(key: string, entry: Wanted): Promise<void> {
  const controller = new AbortController();
  entry.reading = controller;
  try {
    const probe = await api.get(`${VENDOR_PROBES_PATH}${entry.pk}/`, undefined, controller.signal);
    known.set(key, overridesOf(probe));
    listeners.get(key)?.forEach((listener) => listener());
  } catch (error: unknown) {
    if (!isAbortError(error)) entry.failed = true;
  } finally {
    entry.reading = undefined;
  }
}

function overridesOf(probe: JsonObject): ProbeOverrides {
  return {
    template: typeof probe.parent_tmpl === 'number',
    overrides: Array.isArray(probe.overriden_fields) ? probe.overriden_fields.map(String) : [],
  };
}
