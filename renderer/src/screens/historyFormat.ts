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

/**
 * Action titles in the app's words. The API's titles are the central server's own ("Create
 * Appliance") and stay so in `/rest/` (api.md §5); the screens say what the app calls things.
 */
const ACTION_TITLES: Readonly<Record<string, string>> = {
  create_appliance: 'Probe created',
  edit_appliance: 'Probe edited',
  delete_appliance: 'Probe deleted',
  create_template: 'Template created',
  edit_template: 'Template edited',
  delete_template: 'Template deleted',
  delete_network_interface: 'Interface deleted',
  create_ruleset: 'Ruleset created',
  edit_ruleset: 'Ruleset edited',
  delete_ruleset: 'Ruleset deleted',
  create_source: 'Source created',
  edit_source: 'Source edited',
  delete_source: 'Source deleted',
  create_user: 'User created',
  edit_user: 'User edited',
  delete_user: 'User deleted',
  edit_user_token: 'Token regenerated',
  edit_user_password: 'Password changed',
  import_host_id: 'Host identities imported',
  import_threat: 'Threats imported',
  sync_push: 'Changes pushed',
  sync_pull: 'Changes pulled',
};

/** An action's title in the app's words; an action the app does not know keeps the server's title, "Appliance" said "probe". */
export function actionTitle(actionType: string, serverTitle?: string): string {
  const known = ACTION_TITLES[actionType];
  if (known) return known;
  const title = serverTitle && serverTitle !== '' ? serverTitle : actionType.replace(/_/g, ' ');
  return title.replace(/\bAppliances?\b/g, (word) => (word.endsWith('s') ? 'Probes' : 'Probe')).replace(/\bappliances?\b/g, (word) => (word.endsWith('s') ? 'probes' : 'probe'));
}

/** The UTC day (`YYYY-MM-DD`) of an API datetime, for the range filter; undefined if it is none. */
export function dayOf(date: JsonValue | undefined): string | undefined {
  if (typeof date !== 'string') return undefined;
  const match = /^(\d{4}-\d{2}-\d{2})T/.exec(date);
  return match?.[1];
}

/** The object an `object=<type>:<pk>` parameter names, in words ("vendor probe 7"), for its filter chip. */
export function objectFilterText(param: string): string {
  const match = /^([a-z_]+):(-?\d+)$/.exec(param);
  return match ? `${typeLabel(match[1])} ${match[2]}` : param;
}

/** The resource whose fields an entry's changes name: its first linked object's type. */
export function changedResource(uaObjects: JsonValue | undefined): string | undefined {
  return linkedObjects(uaObjects).find((o) => o.type !== undefined)?.type;
}
