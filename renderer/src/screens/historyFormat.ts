/**
 * Pure helpers of the History screen (no DOM, no I/O): where a linked object of an entry opens in
 * the app, and an entry's description as text and linked parts.
 */
import type { JsonObject, JsonValue } from '../../../shared/resources';

/** A `ua_objects` entry (api.md §5): `{type, pk, value}`, without pk once deleted, or `{value}`. */
export interface LinkedObject {
  readonly key: string;
  readonly type: string | undefined;
  readonly pk: number | undefined;
  readonly value: string;
}

function valueText(value: JsonValue | undefined): string {
  if (value === null || value === undefined) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function linkedObjects(uaObjects: JsonValue | undefined): LinkedObject[] {
  if (typeof uaObjects !== 'object' || uaObjects === null || Array.isArray(uaObjects)) return [];
  return Object.entries(uaObjects).map(([key, raw]) => {
    const entry: JsonObject = typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? raw : { value: raw };
    return {
      key,
      type: typeof entry.type === 'string' ? entry.type : undefined,
      pk: typeof entry.pk === 'number' ? entry.pk : undefined,
      value: valueText(entry.value),
    };
  });
}

/** The screens that show one object of a type, by endpoint name. */
const SCREEN_OF_TYPE: Readonly<Record<string, (pk: number) => string>> = {
  vendor_probe: (pk) => `/probes/vendor/${pk}`,
  engine_probe: (pk) => `/probes/engine/${pk}`,
  vendor_probe_template: (pk) => `/templates/${pk}`,
};

/** The app route of a linked object that still exists (has a pk) and has a screen; else undefined. */
export function objectRoute(object: Pick<LinkedObject, 'type' | 'pk'>): string | undefined {
  if (object.type === undefined || object.pk === undefined) return undefined;
  return SCREEN_OF_TYPE[object.type]?.(object.pk);
}

/** What kind of object a type names, in words. */
export function typeLabel(type: string | undefined): string {
  const labels: Record<string, string> = {
    vendor_probe: 'vendor probe',
    engine_probe: 'engine probe',
    vendor_probe_template: 'template',
    network_interface: 'interface',
    ruleset: 'ruleset',
    source: 'source',
    sciriususer: 'user',
  };
  return type === undefined ? 'value' : (labels[type] ?? type.replace(/_/g, ' '));
}

export type DescriptionPart = { readonly text: string } | { readonly object: LinkedObject };

/**
 * `description_raw` with `{user}` and each `{key}` filled in, linked objects as parts of their
 * own; undefined when the template names a key the entry lacks (then show `description` as is).
 */
export function descriptionParts(raw: string, username: string, objects: readonly LinkedObject[]): DescriptionPart[] | undefined {
  if (raw === '') return undefined;
  const byKey = new Map(objects.map((o) => [o.key, o]));
  const parts: DescriptionPart[] = [];
  let last = 0;
  for (const match of raw.matchAll(/\{(\w+)\}/g)) {
    const index = match.index;
    if (index > last) parts.push({ text: raw.slice(last, index) });
    const key = match[1]!;
    if (key === 'user') parts.push({ text: username });
    else {
      const object = byKey.get(key);
      if (!object) return undefined;
      parts.push(object.type === undefined ? { text: object.value } : { object });
    }
    last = index + match[0].length;
  }
  if (last < raw.length) parts.push({ text: raw.slice(last) });
  return parts;
}
