/**
 * The fields of the query language a workspace can be queried on (issue 24 §1, `hostFields`), with
 * no I/O: `ip`, `hits` and every path of its identities as `host_id.<path>`, each with its kind and
 * an example query that uses a value the workspace holds.
 */
import type { PathKind } from '../api/hostTerms';
import type { QueryField } from './hostSurvey';
import { qfilterTerm } from './queryAssist';

/** A path of the workspace's identities as the search index names it. */
export interface WorkspacePath {
  readonly path: string;
  readonly kind: PathKind;
  /** Distinct values held (0 for times and counts). */
  readonly values: number;
  /** One value held, if any. */
  readonly example: string | undefined;
}

export interface WorkspaceSample {
  /** An address the workspace holds. */
  readonly ip: string | undefined;
  /** The day (YYYY-MM-DD) of the latest last seen. */
  readonly lastDay: string | undefined;
}

const KIND_ORDER: readonly PathKind[] = ['s', 'n', 'b', 'x'];

function kindOf(path: string, kind: PathKind): QueryField['kind'] {
  if (kind === 's') return 'text';
  if (kind === 'n') return 'number';
  if (kind === 'b') return 'boolean';
  return path.endsWith('_seen') ? 'time' : 'number';
}

function example(field: string, kind: QueryField['kind'], value: string | undefined, sample: WorkspaceSample): string {
  if (kind === 'time') return `${field}:>=${sample.lastDay ?? '2026-01-01'}`;
  if (kind === 'boolean') return `${field}:${value ?? 'true'}`;
  if (value === undefined) return kind === 'number' ? `${field}:>0` : `${field}:*`;
  return qfilterTerm(field, value);
}

/** The fields, `ip` and `hits` first, then the identity's paths in order; a path held as text and number is one text field. */
export function queryFields(paths: readonly WorkspacePath[], sample: WorkspaceSample): QueryField[] {
  const byPath = new Map<string, WorkspacePath[]>();
  for (const p of paths) byPath.set(p.path, [...(byPath.get(p.path) ?? []), p]);
  const fields: QueryField[] = [
    { field: 'ip', kind: 'text', example: qfilterTerm('ip', sample.ip ?? '10.0.0.1'), values: 0 },
    { field: 'hits', kind: 'number', example: 'hits:>0', values: 0 },
  ];
  for (const path of [...byPath.keys()].sort()) {
    if (path === '') continue;
    const kinds = byPath.get(path)!.sort((a, b) => KIND_ORDER.indexOf(a.kind) - KIND_ORDER.indexOf(b.kind));
    const main = kinds[0]!;
    const kind = kindOf(path, main.kind);
    const field = `host_id.${path}`;
    const values = kinds.reduce((sum, k) => sum + k.values, 0);
    fields.push({ field, kind, example: example(field, kind, kinds.find((k) => k.example !== undefined)?.example, sample), values: kind === 'time' ? 0 : values });
  }
  return fields;
}
