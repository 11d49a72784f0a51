/**
 * Template inheritance (api.md §4) read from the objects the API shows, for the screens that
 * explain it: where an inherited value really comes from, and which values a child takes when
 * it gets another parent. Pure: the callers fetch the objects.
 */
import { INHERITABLE, type InheritableName } from '../resources/probes';
import type { JsonObject, JsonValue } from '../resources/fields';

/** A value as the API compares it: interfaces and protocols by (name, flag), whatever their pks and order. */
export function valueKey(value: JsonValue | undefined): string {
  if (Array.isArray(value) && value.every((v) => typeof v === 'object' && v !== null && !Array.isArray(v))) {
    const pairs = value.map((item) => {
      const entry = item as JsonObject;
      const flag = Object.entries(entry).find(([key]) => key !== 'pk' && key !== 'name')?.[1];
      return [String(entry.name ?? ''), flag !== false] as const;
    });
    return JSON.stringify(pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
  }
  return JSON.stringify(value ?? null);
}

/** A template as far as inheritance goes: who its parent is and what it sets itself. */
export interface TemplateLink {
  readonly pk: number;
  readonly name: string;
  readonly parent: number | null;
  readonly overrides: readonly string[];
}

/** A template object of the API as a link of the chain. */
export function templateLinkOf(template: JsonObject): TemplateLink {
  return {
    pk: Number(template.pk),
    name: String(template.name ?? ''),
    parent: typeof template.parent_tmpl === 'number' ? template.parent_tmpl : null,
    overrides: Array.isArray(template.overriden_fields) ? template.overriden_fields.map(String) : [],
  };
}

/**
 * Rule 1 followed upwards: the template an inherited field's value comes from is the nearest
 * ancestor that sets it itself — one that overrides it, or the top of the chain (no parent).
 * `chain` starts with the direct parent, each next entry the parent of the one before.
 * Undefined when the chain stops before such a template (an ancestor not read, or a cycle).
 */
export function sourceOfInherited(field: string, chain: readonly TemplateLink[]): TemplateLink | undefined {
  const seen = new Set<number>();
  for (let index = 0; index < chain.length; index++) {
    const link = chain[index]!;
    if (seen.has(link.pk)) return undefined;
    seen.add(link.pk);
    if (link.parent === null || link.overrides.includes(field)) return link;
    if (chain[index + 1]?.pk !== link.parent) return undefined;
  }
  return undefined;
}

/** One value a child takes from a new parent. */
export interface InheritedChange {
  readonly field: InheritableName;
  readonly from: JsonValue;
  readonly to: JsonValue;
}

/**
 * Rule 2: giving a child the parent `parent` copies into it every inheritable value it does not
 * override. Returns the ones that differ from what the child has now, in field order.
 */
export function changesWithNewParent(child: JsonObject, overrides: readonly string[], parent: JsonObject): InheritedChange[] {
  return INHERITABLE.filter((field) => !overrides.includes(field) && valueKey(child[field]) !== valueKey(parent[field])).map((field) => ({
    field,
    from: child[field] ?? null,
    to: parent[field] ?? null,
  }));
}
