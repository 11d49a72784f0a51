/**
 * A template's save, previewed (shared/app/templatePreview.ts): the same decisions as the write
 * (api.md §4, shared/api/inheritance.ts) run over values read beforehand, nothing stored. The
 * template takes the fields the save gives, then what its parent hands down (rules 2–3); each
 * changed field reaches the children that do not override it (rule 5, the protocol exception),
 * and through child templates theirs.
 */
import { INHERITABLE, type InheritableName } from '../resources/probes';
import type { JsonObject, JsonValue } from '../resources/fields';
import type { EffectiveChange, PreviewedObject } from '../app/templatePreview';
import { fieldsReachingChild, fieldsToInherit, isItemField, itemsKey, type ItemPair } from './inheritance';

/** Every inheritable field's value as the API shows it (interfaces and protocols as their item lists). */
export type OwnerValues = Readonly<Record<InheritableName, JsonValue>>;

export interface PreviewNode {
  readonly pk: number;
  readonly name: string;
  readonly overrides: readonly string[];
  readonly values: OwnerValues;
}

export interface PreviewTree {
  /** The template being saved, as stored now. */
  readonly template: PreviewNode & { readonly parent: number | null };
  /** The template's parent after the save (its values as stored now), or null. */
  readonly parentAfter: PreviewNode | null;
  /** Children of each template of the subtree, as stored now. */
  readonly children: ReadonlyMap<number, { readonly templates: readonly PreviewNode[]; readonly probes: readonly PreviewNode[] }>;
}

export interface TemplateSave {
  readonly parent: number | null;
  readonly overrides: readonly string[];
  /** The inheritable fields the save gives, validated. */
  readonly given: Readonly<Partial<Record<InheritableName, JsonValue>>>;
}

/** An item list's (name, flag) pairs, whatever the flag is called (`active`, `detection`). */
function pairsOf(value: JsonValue): ItemPair[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item): ItemPair[] => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) return [];
    const flag = Object.entries(item).find(([key]) => key !== 'pk' && key !== 'name')?.[1];
    return [[String(item.name), flag === true]];
  });
}

/** The comparable key of a field's value: items by name and flag, in any order; scalars as JSON. */
export function valueKey(field: string, value: JsonValue): string {
  return isItemField(field) ? itemsKey(pairsOf(value)) : JSON.stringify(value ?? null);
}

/** An item list as shown in a preview: without item pks (a copy gets new ones), by name. */
function shown(field: string, value: JsonValue): JsonValue {
  if (!isItemField(field) || !Array.isArray(value)) return value;
  const flag = field === 'interfaces' ? 'active' : 'detection';
  return pairsOf(value)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
    .map(([name, on]) => ({ name, [flag]: on }));
}

function change(field: string, before: JsonValue, after: JsonValue): EffectiveChange {
  return { field, before: shown(field, before), after: shown(field, after) };
}

/** The template's inheritable values after the save: what it gives, then what its parent hands down. */
export function savedValues(tree: PreviewTree, save: TemplateSave): OwnerValues {
  const values: Record<InheritableName, JsonValue> = { ...tree.template.values };
  for (const field of INHERITABLE) {
    const given = save.given[field];
    if (given !== undefined) values[field] = given;
  }
  if (save.parent !== null && tree.parentAfter) {
    for (const field of fieldsToInherit(save.parent, tree.template.parent, save.overrides, tree.template.overrides)) {
      values[field] = tree.parentAfter.values[field];
    }
  }
  return values;
}

/**
 * The probes and templates of the subtree whose effective values the save changes, by name,
 * with each changed field before → after; and the template's own inheritable changes.
 */
export function previewTemplateSave(tree: PreviewTree, save: TemplateSave): { own: EffectiveChange[]; objects: PreviewedObject[] } {
  const after = savedValues(tree, save);
  const changedOf = (before: OwnerValues, now: OwnerValues, fields: readonly InheritableName[]) =>
    fields.filter((f) => valueKey(f, before[f]) !== valueKey(f, now[f]));
  const ownChanged = changedOf(tree.template.values, after, INHERITABLE);
  const own = ownChanged.map((f) => change(f, tree.template.values[f], after[f]));

  const objects: PreviewedObject[] = [];
  // Cycles are refused on write; the guard only keeps a damaged tree from looping.
  const visited = new Set<number>();
  const walk = (templatePk: number, values: OwnerValues, fields: readonly InheritableName[]) => {
    if (fields.length === 0 || visited.has(templatePk)) return;
    visited.add(templatePk);
    const children = tree.children.get(templatePk);
    if (!children) return;
    for (const probe of children.probes) {
      const reaching = fieldsReachingChild(fields, { overrides: probe.overrides, isTemplateWithProbes: false });
      const changed = changedOf(probe.values, values, reaching);
      if (changed.length > 0) {
        objects.push({ resource: 'vendor_probe', pk: probe.pk, name: probe.name, changes: changed.map((f) => change(f, probe.values[f], values[f])) });
      }
    }
    for (const child of children.templates) {
      const withProbes = (tree.children.get(child.pk)?.probes.length ?? 0) > 0;
      const reaching = fieldsReachingChild(fields, { overrides: child.overrides, isTemplateWithProbes: withProbes });
      const changed = changedOf(child.values, values, reaching);
      if (changed.length === 0) continue;
      objects.push({ resource: 'vendor_probe_template', pk: child.pk, name: child.name, changes: changed.map((f) => change(f, child.values[f], values[f])) });
      const childAfter: Record<InheritableName, JsonValue> = { ...child.values };
      for (const f of changed) childAfter[f] = values[f];
      walk(child.pk, childAfter, changed);
    }
  };
  walk(tree.template.pk, after, ownChanged);
  objects.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : a.pk - b.pk));
  return { own, objects };
}

/** The template's other fields the save changes (name, description…): given and not equal to the stored value. */
export function otherChanges(current: JsonObject, given: Readonly<Record<string, JsonValue>>): EffectiveChange[] {
  return Object.entries(given)
    .filter(([field]) => !(INHERITABLE as readonly string[]).includes(field) && field !== 'overriden_fields' && field !== 'comment')
    .filter(([field, value]) => JSON.stringify(current[field] ?? null) !== JSON.stringify(value ?? null))
    .map(([field, value]) => ({ field, before: current[field] ?? null, after: value }));
}
