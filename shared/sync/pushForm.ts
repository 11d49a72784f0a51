/**
 * A value in the form it is sent to the central server, and the equality the sync uses: the
 * recorder (electron/remote/outbox.ts) and the connect plan (connectMatch.ts) compare alike.
 */
import type { JsonValue } from '../resources';
import { canonical, itemsByName } from './merge';

const FLAGS: Readonly<Record<string, string>> = { interfaces: 'active', protocols: 'detection' };

/** A value as it is sent to the central server: interfaces and protocols without local pks, sorted by name. */
export function pushValue(field: string, value: JsonValue | undefined): JsonValue {
  const flag = FLAGS[field];
  if (flag === undefined) return value ?? null;
  return [...itemsByName(value, flag)].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([name, on]) => ({ name, [flag]: on }));
}

export function sameForSync(field: string, a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return canonical(pushValue(field, a)) === canonical(pushValue(field, b));
}
