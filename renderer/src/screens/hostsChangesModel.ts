/**
 * Pure rules of the Changes view (no DOM, no I/O): a point the engineer picks as the
 * `hostChanges` parameter (`since`, `until`), and each kind of change in words.
 */
import type { ChangeKind } from '../../../shared/app/hostSurvey';

/** A point of a comparison as picked: now, the last pull, an import, or the end of a day (UTC). */
export type PointChoice = { readonly kind: 'now' } | { readonly kind: 'pull' } | { readonly kind: 'visit'; readonly visit: number } | { readonly kind: 'date'; readonly day: string };

/**
 * The parameter of a point: an import's number, `pull`, or a day (`YYYY-MM-DD`, read as what
 * Outpost had learned by that day's end); undefined for now, and for a day not yet complete.
 */
export function comparePointParam(point: PointChoice): string | undefined {
  switch (point.kind) {
    case 'now':
      return undefined;
    case 'pull':
      return 'pull';
    case 'visit':
      return String(point.visit);
    case 'date':
      return /^\d{4}-\d{2}-\d{2}$/.test(point.day) ? point.day : undefined;
  }
}

const WORDS: Readonly<Record<ChangeKind, string>> = {
  host_new: 'New hosts',
  host_not_seen: 'Hosts not seen since',
  service_added: 'Services that appeared',
  service_gone: 'Services that went',
  role_new: 'New roles',
  user_new: 'New users',
  hostname_new: 'New host names',
  tls_changed: 'TLS certificates changed',
};

export function changeKindWords(kind: ChangeKind): string {
  return WORDS[kind] ?? kind;
}
