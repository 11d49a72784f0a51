/**
 * The host list's search box (issue 24 §1) as one rule, with no I/O: a host matches a search when
 * its address or one of its identity's indexed values (every value but the timestamps and the
 * `<list>_count` numbers: `hostTerms`), case-folded, contains the search case-folded. The store
 * answers it through the trigram index (store/hostSurvey.ts) and reads the hosts not yet indexed
 * with this function, so that both agree.
 */
import { hostTerms } from '../api/hostTerms';
import { fold } from '../api/qfilter';
import type { JsonValue } from '../resources/fields';

/** A text folded code point by code point, as the search index folds its values. */
export function foldText(text: string): string {
  return [...text].map(fold).join('');
}

/** Does the host (its address, its identity) contain `needle`, already folded? */
export function hostContains(ip: string, identity: JsonValue, needle: string): boolean {
  if (foldText(ip).includes(needle)) return true;
  return hostTerms(identity).some(([, kind, text]) => kind !== 'x' && foldText(text).includes(needle));
}
