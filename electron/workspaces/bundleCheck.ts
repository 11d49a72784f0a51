/**
 * A workspace bundle's rows checked before anything is written (app.md §2). A bundle is a file
 * from a USB stick or a mail, so every table has a schema and every row is checked against it:
 * - the rows of a resource as the API checks a write (shared/api/validate.ts over the one
 *   declaration in shared/resources): types, lengths, formats, choices, unique names, and
 *   references, which must name a row of the bundle;
 * - host identities as the host import checks them (shared/api/imports.ts), their copies for
 *   search and ordering made again from the identity;
 * - history entries for an action of api.md §5, their linked objects and field changes
 *   well-formed, each entry no larger than one write makes;
 * - pk sequences for a table that has one, within Django's range of pks;
 * - every column for the table's shape in the schema (no unknown column, NOT NULL kept).
 * The first row that fails refuses the whole bundle, with its table, its row and the reason.
 * Otherwise the rows come out clean, as the store writes them.
 *
 * Secrets are not taken from a bundle: password hashes and tokens are ignored, so its accounts
 * sign in once a manager of this Outpost sets their password or makes their token. The account
 * named `admin` is this Outpost's own in every workspace (the data folder's token signs it in):
 * it comes in active, as the superuser. The `is_superuser` mark of any other account is dropped:
 * what an imported account may do is its role.
 */
import { closesCycle } from '../../shared/api/inheritance';
import { parseJsonText } from '../../shared/api/pythonJson';
import { checkHostImport, MAX_REPORTED_MESSAGES } from '../../shared/api/imports';
import { MESSAGES, message } from '../../shared/api/messages';
import { checkFieldValue, type Lookups } from '../../shared/api/validate';
import type { ImportedAccounts } from '../../shared/app/importedAccounts';
import {
  ACTIONS,
  RESOURCES,
  ROLES,
  ruleset,
  user,
  type Field,
  type ItemsField,
  type JsonObject,
  type JsonValue,
  type RefListField,
  type Resource,
  type Role,
} from '../../shared/resources';
import { columnsOf, resourcesIn } from '../../shared/resources/derived';
import { readColumn, toSql, type SqlValue } from '../server/store/columns';
import { BUNDLE_TABLES, type BundleShapes, type BundleTable, type CheckedRow, type TableShape } from '../server/store/bundleRows';

/** The largest pk (and pk sequence) a bundle may hold: Django's AutoField, the central server's pks. */
export const MAX_PK = 2_147_483_647;
/**
 * The most characters one history entry may hold. An entry is made by one write, whose body is
 * at most 256 KiB (electron/app/bodyPolicy.ts); its changes hold a value before and after.
 */
export const MAX_HISTORY_ENTRY = 1024 * 1024;
/** A reason names a value at most this long (a refused value may be megabytes). */
const MAX_REASON = 300;

export type BundleCheck =
  | { readonly ok: true; readonly tables: Readonly<Record<BundleTable, readonly CheckedRow[]>>; readonly accounts: ImportedAccounts }
  | { readonly ok: false; readonly table: string; readonly row: number; readonly reason: string };

/** Why the row being checked is refused. */
class Refusal {
  constructor(readonly reason: string) {}
}

const refuse = (reason: string): never => {
  throw new Refusal(reason);
};

/** DRF's detail for a field (a list, or an object by key or index) as one line. */
function detailText(detail: JsonValue): string {
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) return detail.map(detailText).filter((t) => t !== '').join(' ');
  if (detail !== null && typeof detail === 'object') {
    return Object.entries(detail)
      .map(([key, value]) => `${key}: ${detailText(value)}`)
      .join('; ');
  }
  return String(detail);
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'text';
  if (typeof value === 'number') return Number.isInteger(value) ? 'an integer' : 'a decimal number';
  return `a ${typeof value}`;
}

/** A column's JSON text, parsed. */
function jsonIn(column: string, text: JsonValue | undefined): JsonValue {
  if (typeof text !== 'string') return refuse(`${column}: expected JSON text, got ${kindOf(text)}`);
  // As the API parses a body: nested at most MAX_DEPTH levels (a deeper one would overflow what reads it).
  const parsed = parseJsonText(text);
  return parsed.ok ? parsed.value : refuse(`${column}: expected JSON text (${parsed.reason})`);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What the rows of one check may refer to: each resource's pks in the bundle, and the unique values seen so far. */
class BundleIndex {
  private readonly pks = new Map<string, Set<number>>();
  private readonly taken = new Map<string, Set<string>>();
  /** Lookups of references alone (an item's name is unique within its owner only). */
  readonly references: Lookups = { refExists: (target, pk) => this.refExists(target, pk), uniqueTaken: () => false };

  constructor(tables: Readonly<Record<string, readonly JsonObject[]>>) {
    for (const table of BUNDLE_TABLES) {
      for (const row of tables[table] ?? []) {
        const resource = resourceOfRow(table, row);
        if (resource && Number.isSafeInteger(row.pk)) this.pksOf(resource.name).add(row.pk as number);
      }
    }
  }

  private pksOf(name: string): Set<number> {
    let set = this.pks.get(name);
    if (!set) this.pks.set(name, (set = new Set()));
    return set;
  }

  /** The lookups of a write of `resource`: references, and its unique field against the rows before. */
  of(resource: Resource): Lookups {
    return { refExists: (target, pk) => this.refExists(target, pk), uniqueTaken: (value) => this.taken.get(resource.name)?.has(value) ?? false };
  }

  refExists(target: string, pk: number): boolean {
    return this.pks.get(target)?.has(pk) ?? false;
  }

  /** A checked row's unique value: the next row may not take it again. */
  take(resource: Resource, value: SqlValue | undefined): void {
    if (typeof value !== 'string') return;
    let set = this.taken.get(resource.name);
    if (!set) this.taken.set(resource.name, (set = new Set()));
    set.add(value);
  }
}

/** Facts of the declarations a check asks for every row, made once. */
const memo = <K, V>(make: (key: K) => V): ((key: K) => V) => {
  const made = new Map<K, V>();
  return (key) => {
    if (!made.has(key)) made.set(key, make(key));
    return made.get(key)!;
  };
};
const keptIn = memo((table: string) => {
  const kept = resourcesIn(table);
  return { kept, scoped: kept.filter((r) => r.storage.scope) };
});
const columnsOfResource = memo(columnsOf);

/** The resource a row of a table is an object of (a probe's family by its `type`), if the table holds one. */
function resourceOfRow(table: string, row: JsonObject): Resource | undefined {
  const { kept, scoped } = keptIn(table);
  if (scoped.length === 0) return kept[0];
  return scoped.find((r) => row[r.storage.scope!.column] === r.storage.scope!.value);
}

/** A pk within Django's range (a bound workspace's own objects have negative pks). */
function checkPk(value: JsonValue): void {
  if (typeof value === 'number' && Math.abs(value) > MAX_PK) refuse(`pk: ${value} is out of range (at most ${MAX_PK} either side of 0)`);
}

/** One column's value of a resource's field, checked as the API checks a write, in the stored form. */
function fieldCell(name: string, field: Field, raw: JsonValue, resource: Resource, lookups: Lookups): SqlValue {
  const read = readColumn(field, raw);
  if (!read.ok) return refuse(`${name}: expected ${read.expected}, got ${kindOf(raw)}`);
  if (read.value === null) {
    if (!field.readOnly && !field.nullable) refuse(`${name}: ${MESSAGES.null}`);
    return null;
  }
  if (name === 'pk') checkPk(read.value);
  if (field.kind === 'datetime') return read.value as number;
  const checked = checkFieldValue(name, field, read.value, resource, lookups);
  if ('errors' in checked) refuse(`${name}: ${detailText(checked.errors)}`);
  return toSql(field, (checked as { value: JsonValue }).value);
}

/** The declared columns of a resource's row, checked; absent ones take the declared default, else the column's. */
function resourceCells(resource: Resource, row: JsonObject, index: BundleIndex): Record<string, SqlValue> {
  const cells: Record<string, SqlValue> = {};
  const lookups = index.of(resource);
  for (const name of columnsOfResource(resource)) {
    const field = resource.fields[name]!;
    if (row[name] === undefined) {
      if (field.default !== undefined && !field.readOnly) cells[name] = toSql(field, field.default);
      continue;
    }
    cells[name] = fieldCell(name, field, row[name]!, resource, lookups);
  }
  if (resource.unique) index.take(resource, cells[resource.unique.field]);
  return cells;
}

/** Tables' own rules: a row in, its checked cells out (a Refusal otherwise). */
interface TableRule {
  check(row: JsonObject, index: BundleIndex): Record<string, SqlValue>;
  /** Columns whose values together are unique in the table (its UNIQUE constraints and primary key). */
  readonly unique: readonly (readonly string[])[];
  /** Checks of the whole table once every row passed (a template's parents). */
  after?(rows: readonly CheckedRow[]): void;
}

/**
 * The rows of the resource(s) kept in `table`. Columns of the table that are not the row's
 * resource's (the other probe family's) must be empty; `internal` makes the columns no field
 * shows.
 */
function resourceRule(table: string, internal: Readonly<Record<string, (row: JsonObject, cells: Record<string, SqlValue>) => SqlValue | undefined>> = {}): Omit<TableRule, 'unique'> {
  const ownColumns = memo((resource: Resource) => new Set([...columnsOf(resource), ...Object.keys(internal), ...(resource.storage.scope ? [resource.storage.scope.column] : [])]));
  return {
    check(row, index) {
      const resource = resourceOfRow(table, row);
      if (!resource) {
        const { scoped } = keptIn(table);
        const column = scoped[0]!.storage.scope!.column;
        return refuse(`${column}: not one of ${scoped.map((r) => `"${r.storage.scope!.value}"`).join(', ')}`);
      }
      const cells = resourceCells(resource, row, index);
      const own = ownColumns(resource);
      for (const [column, value] of Object.entries(row)) {
        if (!own.has(column) && value !== null && value !== '') refuse(`${column}: not a field of ${resource.name}, it must be empty`);
      }
      if (resource.storage.scope) cells[resource.storage.scope.column] = resource.storage.scope.value;
      for (const [column, make] of Object.entries(internal)) {
        const value = make(row, cells);
        if (value !== undefined) cells[column] = value;
      }
      return cells;
    },
  };
}

/** A history entry's linked objects: `{key: {type?, pk?, value}}`, as the history reads them. */
function checkUaObjects(text: SqlValue): void {
  const objects = jsonIn('ua_objects', text as JsonValue);
  if (!isObject(objects)) return refuse('ua_objects: expected an object of linked objects');
  for (const [key, entry] of Object.entries(objects)) {
    const wellFormed =
      isObject(entry) &&
      'value' in entry &&
      Object.keys(entry).every((k) => k === 'type' || k === 'pk' || k === 'value') &&
      (entry.type === undefined || typeof entry.type === 'string') &&
      (entry.pk === undefined || Number.isSafeInteger(entry.pk));
    if (!wellFormed) refuse(`ua_objects: "${key.slice(0, 64)}" is not {type, pk, value}`);
  }
}

/** A history entry's field changes: null, or a list of `{field, from?, to?}` / `{field, secret: true}`. */
function changesCell(row: JsonObject): SqlValue | undefined {
  const raw = row.changes;
  if (raw === undefined || raw === null) return raw;
  const changes = jsonIn('changes', raw);
  if (!Array.isArray(changes)) return refuse('changes: expected a list of field changes');
  changes.forEach((change, at) => {
    const wellFormed =
      isObject(change) &&
      typeof change.field === 'string' &&
      Object.keys(change).every((k) => k === 'field' || k === 'from' || k === 'to' || k === 'secret') &&
      (change.secret === undefined || (change.secret === true && !('from' in change) && !('to' in change)));
    if (!wellFormed) refuse(`changes: item ${at} is not {field, from, to} or {field, secret}`);
  });
  return raw as string;
}

function textLength(row: JsonObject): number {
  let length = 0;
  for (const value of Object.values(row)) if (typeof value === 'string') length += value.length;
  return length;
}

const historyRule: Omit<TableRule, 'unique'> = (() => {
  const rule = resourceRule('user_action', { changes: changesCell });
  return {
    check(row, index) {
      if (textLength(row) > MAX_HISTORY_ENTRY) refuse(`the entry holds more than ${MAX_HISTORY_ENTRY} characters, more than one write makes`);
      const cells = rule.check(row, index);
      if (typeof cells.action_type === 'string' && !Object.hasOwn(ACTIONS, cells.action_type)) refuse('action_type: not an action of the history (api.md §5)');
      if (cells.ua_objects !== undefined) checkUaObjects(cells.ua_objects);
      return cells;
    },
  };
})();

/** The account `admin` is this Outpost's own; no other account is a superuser but by its role. */
const ADMIN = 'admin';

const userRule = resourceRule('user', {
  // Ignored: an account of a bundle signs in once a manager of this Outpost sets its password or token.
  password: () => '',
  is_superuser: (_row, cells) => (cells.username === ADMIN ? 1 : 0),
});

const accountRule: Omit<TableRule, 'unique'> = {
  check(row, index) {
    const cells = userRule.check(row, index);
    if (cells.username === ADMIN) cells.is_active = 1;
    return cells;
  },
};

/** The central server's device names no probe; a probe's device names its probe. */
const deviceRule: Omit<TableRule, 'unique'> = (() => {
  const rule = resourceRule('vendor_device');
  return {
    check(row, index) {
      const cells = rule.check(row, index);
      if ((cells.kind === 'central') !== (cells.probe === null || cells.probe === undefined)) refuse('probe: the central device names no probe, a probe device names its probe');
      return cells;
    },
  };
})();

/** A join table of a list of references (a ruleset's sources): two references, both into the bundle. */
function joinRule(owner: Resource, field: RefListField): TableRule {
  return {
    unique: [[field.through.owner, field.through.target]],
    check(row, index) {
      const cells: Record<string, SqlValue> = {};
      for (const [column, target] of [
        [field.through.owner, owner.name],
        [field.through.target, field.target],
      ] as const) {
        const value = row[column];
        if (!Number.isSafeInteger(value)) return refuse(`${column}: expected an integer, got ${kindOf(value)}`);
        if (!index.refExists(target, value as number)) refuse(`${column}: ${message.invalidPk(String(value))}`);
        cells[column] = value as number;
      }
      return cells;
    },
  };
}

/** The interfaces or protocols of probes and templates (an `items` field's table): each owned by exactly one. */
function itemRule(table: string): TableRule {
  const owners = RESOURCES.flatMap((resource) =>
    Object.values(resource.fields)
      .filter((field): field is ItemsField => field.kind === 'items' && field.table === table)
      .map((field) => ({ resource, field, column: resource.storage.itemOwner! })),
  );
  const { field: items } = owners[0]!;
  const name: Field = { kind: 'string', label: 'Name', maxLength: items.nameMaxLength };
  const flag: Field = { kind: 'boolean', label: items.flagLabel };
  const pk: Field = { kind: 'integer', label: 'ID' };
  return {
    unique: [['pk'], ...owners.map(({ column }) => [column, 'name'])],
    check(row, index) {
      const resource = owners[0]!.resource;
      const lookups = index.references;
      const cells: Record<string, SqlValue> = {
        pk: row.pk === undefined ? null : fieldCell('pk', pk, row.pk, resource, lookups),
        name: fieldCell('name', name, row.name ?? null, resource, lookups),
      };
      if (row[items.flag] !== undefined) cells[items.flag] = fieldCell(items.flag, flag, row[items.flag]!, resource, lookups);
      const given = owners.filter(({ column }) => row[column] !== undefined && row[column] !== null);
      if (given.length !== 1) refuse(`belongs to ${given.length === 0 ? 'no' : 'more than one'} owner: one of ${owners.map((o) => o.column).join(', ')} names it`);
      for (const owner of owners) {
        const ref: Field = { kind: 'ref', label: owner.column, target: owner.resource.name, nullable: true };
        cells[owner.column] = row[owner.column] === undefined ? null : fieldCell(owner.column, ref, row[owner.column]!, owner.resource, lookups);
      }
      if (cells.pk === null) delete cells.pk;
      return cells;
    },
  };
}

/** A template's parents lead to no cycle (api.md §3.1, rule 7). */
function noParentCycle(rows: readonly CheckedRow[]): void {
  const parentOf = new Map(rows.map((row) => [Number(row.pk), row.parent_tmpl === null || row.parent_tmpl === undefined ? null : Number(row.parent_tmpl)]));
  rows.forEach((row, at) => {
    const parent = parentOf.get(Number(row.pk));
    if (parent !== null && parent !== undefined && closesCycle(Number(row.pk), parent, (pk) => parentOf.get(pk) ?? null)) {
      throw new RowRefusal(at, 'parent_tmpl: its parents lead back to itself');
    }
  });
}

/** A refusal found by a check of the whole table, naming its row. */
class RowRefusal extends Refusal {
  constructor(
    readonly at: number,
    reason: string,
  ) {
    super(reason);
  }
}

/** A host identity as the host import checks it; the copies of its values (times, hostnames) made from it again. */
const hostRule: TableRule = {
  unique: [['pk'], ['ip']],
  check(row) {
    const pk = row.pk;
    if (pk !== undefined && !Number.isSafeInteger(pk)) refuse(`pk: expected an integer, got ${kindOf(pk)}`);
    if (pk !== undefined) checkPk(pk);
    const identity = (column: string, hits: JsonValue | undefined) => {
      const hostId = jsonIn(column, row[column]);
      const checked = checkHostImport({ ip: row.ip ?? null, host_id: hostId, ...(hits === undefined || hits === null ? {} : { hits }) }, MAX_REPORTED_MESSAGES);
      if (!checked.ok) return refuse(`${column}: ${detailText(checked.errors)}`);
      return checked.value;
    };
    const served = identity('data', row.hits);
    const cells: Record<string, SqlValue> = {
      ip: served.ip,
      hits: served.hits ?? 0,
      first_seen: served.firstSeen,
      last_seen: served.lastSeen,
      hostnames: served.hostnames,
      data: served.data,
    };
    if (pk !== undefined) cells.pk = pk as number;
    // The central server's part: none (null), the served identity itself (''), or an identity of its own.
    const hits = row.central_hits;
    if (hits !== undefined && hits !== null && !(Number.isSafeInteger(hits) && (hits as number) >= 0)) refuse(`central_hits: expected an integer of at least 0, got ${kindOf(hits)}`);
    if (hits !== undefined) cells.central_hits = hits as number | null;
    if (row.central === null || row.central === '') cells.central = row.central;
    else if (row.central !== undefined) cells.central = identity('central', hits).data;
    return cells;
  },
};

/** A pk sequence: of a bundled table that has one, within the range of pks. */
function sequenceRule(shapes: BundleShapes): TableRule {
  return {
    unique: [['name']],
    check(row) {
      const { name, seq } = row;
      if (typeof name !== 'string' || !(BUNDLE_TABLES as readonly string[]).includes(name) || !shapes[name as BundleTable].autoincrement) {
        return refuse(`name: ${typeof name === 'string' ? `"${name.slice(0, 64)}"` : kindOf(name)} is not a bundled table with a pk sequence`);
      }
      if (!Number.isSafeInteger(seq) || (seq as number) < 0 || (seq as number) > MAX_PK) refuse(`seq: out of range (an integer from 0 to ${MAX_PK})`);
      return { name, seq: seq as number };
    },
  };
}

function rulesOf(shapes: BundleShapes): Readonly<Record<BundleTable, TableRule>> {
  const sources = ruleset.fields.sources as RefListField;
  const resourceTable = (rule: Omit<TableRule, 'unique'>, ...unique: string[][]): TableRule => ({ ...rule, unique: [['pk'], ...unique] });
  return {
    user: resourceTable(accountRule),
    source: resourceTable(resourceRule('source')),
    ruleset: resourceTable(resourceRule('ruleset')),
    ruleset_source: joinRule(ruleset, sources),
    vendor_probe_template: { ...resourceTable(resourceRule('vendor_probe_template')), after: noParentCycle },
    appliance: resourceTable(resourceRule('appliance')),
    network_interface: itemRule('network_interface'),
    protocol: itemRule('protocol'),
    vendor_device: resourceTable(deviceRule, ['probe']),
    user_action: resourceTable(historyRule),
    threat: resourceTable(resourceRule('threat')),
    host_id: hostRule,
    sqlite_sequence: sequenceRule(shapes),
  };
}

/** The row against its table's shape: only known columns, each a value a column holds, none missing or null that must be there. */
function checkShape(shape: TableShape, known: ReadonlySet<string>, row: JsonObject): void {
  for (const [column, value] of Object.entries(row)) {
    if (!known.has(column)) refuse(`unknown column "${column.slice(0, 64)}"`);
    if (value !== null && typeof value !== 'string' && typeof value !== 'number') refuse(`${column}: expected a column's value, got ${kindOf(value)}`);
  }
  for (const column of shape.columns) {
    const value = row[column.name];
    if (value === undefined && column.notNull && !column.hasDefault && column.name !== 'pk') refuse(`no value for "${column.name}"`);
    if (value === null && column.notNull) refuse(`${column.name}: ${MESSAGES.null}`);
  }
}

/** Rows whose unique columns repeat those of an earlier row. */
function checkUnique(unique: readonly (readonly string[])[], seen: Map<string, Set<SqlValue>>, cells: CheckedRow): void {
  for (const columns of unique) {
    const values = columns.map((c) => cells[c]);
    if (values.some((v) => v === null || v === undefined)) continue;
    const key = columns.join(',');
    // One column's value is its own key; several are joined by a character no column's value of these holds.
    const value = values.length === 1 ? values[0]! : values.map(String).join('\u0000');
    let set = seen.get(key);
    if (!set) seen.set(key, (set = new Set()));
    if (set.has(value)) refuse(`${columns.join(' and ')}: the same as an earlier row's`);
    set.add(value);
  }
}

function cut(reason: string): string {
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}…` : reason;
}

/** What the accounts of the bundle may do: how many came (this Outpost's admin not counted), by role. */
function accountsOf(rows: readonly CheckedRow[]): ImportedAccounts {
  const roles = Object.fromEntries(ROLES.map((role) => [role, 0])) as Record<Role, number>;
  let count = 0;
  for (const row of rows) {
    if (row.username === ADMIN) continue;
    count++;
    const role = (typeof row.role === 'string' ? row.role : String(user.fields.role!.default)) as Role;
    roles[role]++;
  }
  return { count, roles };
}

/** Check every row of a bundle's tables (known tables, each a list of objects: bundle.ts checked that much). */
export function checkBundleRows(tables: Readonly<Record<string, readonly JsonObject[]>>, shapes: BundleShapes): BundleCheck {
  const rules = rulesOf(shapes);
  const index = new BundleIndex(tables);
  const out: Partial<Record<BundleTable, CheckedRow[]>> = {};
  for (const table of BUNDLE_TABLES) {
    const rows = tables[table] ?? [];
    const rule = rules[table];
    const seen = new Map<string, Set<SqlValue>>();
    const known = new Set(shapes[table].columns.map((c) => c.name));
    const checked: CheckedRow[] = [];
    let at = 0;
    try {
      for (; at < rows.length; at++) {
        const row = rows[at]!;
        checkShape(shapes[table], known, row);
        const cells = rule.check(row, index);
        checkUnique(rule.unique, seen, cells);
        checked.push(cells);
      }
      rule.after?.(checked);
    } catch (error) {
      if (!(error instanceof Refusal)) throw error;
      const row = error instanceof RowRefusal ? error.at : at;
      return { ok: false, table, row: row + 1, reason: cut(error.reason) };
    }
    out[table] = checked;
  }
  const devices = deviceProblem(out.vendor_device ?? [], out.appliance ?? []);
  if (devices) return { ok: false, table: 'vendor_device', row: devices.at + 1, reason: cut(devices.reason) };
  return { ok: true, tables: out as Record<BundleTable, CheckedRow[]>, accounts: accountsOf(out.user ?? []) };
}

/**
 * Devices as the API keeps them (api.md's vendor_device): the central server is one device, pk 1,
 * and a probe's device bears its probe's name, address and version. A bundle cannot make a device lie.
 */
/** What a probe's device copies from its probe (handlers/probes.ts, deviceOf). */
const DEVICE_COPIES = ['name', 'address', 'version'] as const;

function deviceProblem(devices: readonly CheckedRow[], probes: readonly CheckedRow[]): { at: number; reason: string } | undefined {
  const probeOf = new Map(probes.map((probe) => [probe.pk, probe]));
  let central = false;
  for (const [at, device] of devices.entries()) {
    if (device.kind === 'central') {
      if (central) return { at, reason: 'kind: a second central device (the central server is one device, pk 1)' };
      if (device.pk !== 1) return { at, reason: `pk: the central device is pk 1, not ${String(device.pk)}` };
      central = true;
      continue;
    }
    const probe = probeOf.get(device.probe as number);
    const differs = probe && DEVICE_COPIES.filter((column) => String(probe[column] ?? '') !== String(device[column] ?? ''));
    if (differs && differs.length > 0) {
      return { at, reason: `${differs.join(', ')}: not those of its probe ${String(device.probe)} (${differs.map((column) => JSON.stringify(probe![column] ?? '')).join(', ')})` };
    }
  }
  return undefined;
}
