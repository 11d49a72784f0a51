/**
 * What the host search index keeps of one identity (issue 10), with no I/O: each distinct
 * (path, value) of its scalars, the value as `host_id_qfilter` matches it (valueText), and the
 * path's kind. Timestamps (`*_seen`) and the `<list>_count` numbers are not kept as values; their
 * paths are named with kind `x`, so that the search knows a term over them needs the identity
 * itself. Paths follow qfilter's `flatten`: keys joined by dots, list items sharing their list's
 * path. Computed where the identity is at hand (an import's worker thread, the store).
 */
import type { JsonValue } from '../resources/fields';
import { valueText } from './qfilter';

/** 's' text, 'n' number, 'b' boolean, 'x' not indexed (timestamps, counts). */
export type PathKind = 's' | 'n' | 'b' | 'x';

/** A path, its kind, and the value as text ('' for kind `x`). */
export type HostTerm = readonly [path: string, kind: PathKind, text: string];

export function kindOf(path: string, value: string | number | boolean): PathKind {
  if (path.endsWith('_seen')) return 'x';
  if (typeof value === 'number') return path.endsWith('_count') ? 'x' : 'n';
  return typeof value === 'string' ? 's' : 'b';
}

/** The distinct terms of an identity (a services list of a hundred ports gives each port once). */
export function hostTerms(data: JsonValue): HostTerm[] {
  const seen = new Map<string, Set<string>>();
  const out: HostTerm[] = [];
  const walk = (value: JsonValue, path: string): void => {
    if (value === null) return;
    if (Array.isArray(value)) {
      for (const item of value) walk(item, path);
      return;
    }
    if (typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, path === '' ? key : `${path}.${key}`);
      return;
    }
    const kind = kindOf(path, value);
    const text = kind === 'x' ? '' : valueText(value);
    const id = `${kind}${path}`;
    let texts = seen.get(id);
    if (!texts) {
      texts = new Set();
      seen.set(id, texts);
    }
    if (texts.has(text)) return;
    texts.add(text);
    out.push([path, kind, text]);
  };
  walk(data, '');
  return out;
}
