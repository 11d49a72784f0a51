/**
 * Pure rules of the Changes view (no DOM, no I/O): a point the engineer picks as the
 * `hostChanges` parameter (`since`, `until`), and each kind of change in words.
 */
import { CHANGE_KIND_LABELS, type ChangeKind } from '../../../shared/app/hostSurvey';

/** A point of a comparison as picked: now, the last pull, an import, or the end of a day (UTC). */
export type PointChoice = { readonly kind: 'now' } | { readonly kind: 'pull' } | { readonly kind: 'visit'; readonly visit: number } | { readonly kind: 'date'; readonly day: string };

/**
 * The parameter of a point: an import's number, `pull`, or a day (UTC): *since* a day is from its
 * start, *until* a day to its end (what Outpost had learned by then); undefined for now, and for
 * a day not yet complete.
 */
export function comparePointParam(point: PointChoice, edge: 'since' | 'until'): string | undefined {
  switch (point.kind) {
    case 'now':
      return undefined;
    case 'pull':
      return 'pull';
    case 'visit':
      return String(point.visit);
    case 'date':
      if (!/^\d{4}-\d{2}-\d{2}$/.test(point.day)) return undefined;
      return edge === 'since' ? `${point.day}T00:00:00Z` : `${point.day}T23:59:59.999999Z`;
  }
}

const WORDS = CHANGE_KIND_LABELS;

export function changeKindWords(kind: ChangeKind): string {
  return WORDS[kind] ?? kind;
}
