/**
 * Validation of a write payload against a resource's declared fields, as a DRF serializer does
 * it: field by field in declaration order, every message in DRF's words. Checks that need the
 * database (does this pk exist, is this name taken) come in through `Lookups`.
 */
import type {
  ChoiceListField,
  Field,
  ItemsField,
  JsonObject,
  JsonValue,
  RefField,
  RefListField,
  Resource,
  StringField,
} from '../resources';
import { isAddressOrHostName } from './address';
import { ApiError, type FieldErrors } from './errors';
import { formatDate, parseIsoDate } from './datetime';
import { MESSAGES, message, pythonTypeName } from './messages';
import { pyStr, pythonInt } from './python';

/** create = POST; update = PUT (required fields checked); partial = PATCH. */
export type WriteMode = 'create' | 'update' | 'partial';

export interface Lookups {
  /** Does `pk` name an object of resource `target`? */
  refExists(target: string, pk: number): boolean;
  /** Is `value` of the resource's unique field used by another object? */
  uniqueTaken(value: string): boolean;
}

/** An interface or protocol as written: its name and its flag (`active` / `detection`). */
export interface ItemInput {
  readonly name: string;
  readonly flag: boolean;
}

export interface ValidatedWrite {
  /** Validated values of the writable fields given (and, on create, defaults of the others). */
  readonly values: Record<string, JsonValue>;
  /** Interfaces and protocols given, by field. */
  readonly items: Record<string, ItemInput[]>;
  /** The `comment` for the history entry: absent, null or a string. */
  readonly comment: string | null | undefined;
}

class FieldError {
  constructor(readonly detail: JsonValue) {}
}

const fail = (detail: string): never => {
  throw new FieldError([detail]);
};

const TRUE_VALUES = new Set<unknown>(['t', 'T', 'y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON', '1', 1, true]);
const FALSE_VALUES = new Set<unknown>(['f', 'F', 'n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF', '0', 0, false]);
const USERNAME = /^[\p{L}\p{N}_.@+-]+$/u;
const EMAIL = /^[^\s@]+@([A-Za-z0-9-]+\.)+[A-Za-z0-9-]{2,}$|^[^\s@]+@\[[0-9A-Fa-f:.]+\]$/;
const MAX_INTEGER_STRING = 1000;
/** DRF IntegerField's `\.0*\s*$` (Python's `\s`, which is not JavaScript's). */
const TRAILING_ZERO_DECIMALS = /\.0*[\t\n\v\f\r \x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*$/u;

export function toBoolean(value: JsonValue): boolean {
  if (TRUE_VALUES.has(value)) return true;
  if (FALSE_VALUES.has(value)) return false;
  return fail(MESSAGES.notABoolean);
}

export function toInteger(value: JsonValue, field: { min?: number; max?: number }): number {
  if (typeof value === 'string' && value.length > MAX_INTEGER_STRING) fail(MESSAGES.integerTooLong);
  if (typeof value === 'boolean' || (typeof value !== 'number' && typeof value !== 'string')) fail(MESSAGES.notAnInteger);
  // DRF: Python's int() of the text, once a trailing `.0…` is cut off.
  const text = (typeof value === 'number' ? pyStr(value) : (value as string)).replace(TRAILING_ZERO_DECIMALS, '');
  const n = pythonInt(text);
  if (n === undefined) return fail(MESSAGES.notAnInteger);
  const errors: string[] = [];
  if (field.max !== undefined && n > BigInt(field.max)) errors.push(message.maxValue(field.max));
  if (field.min !== undefined && n < BigInt(field.min)) errors.push(message.minValue(field.min));
  if (errors.length) throw new FieldError(errors);
  if (n > BigInt(Number.MAX_SAFE_INTEGER) || n < BigInt(Number.MIN_SAFE_INTEGER)) fail(MESSAGES.notAnInteger);
  return Number(n);
}

function surrogateError(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
    }
    if (code >= 0xd800 && code <= 0xdfff) {
      return `Surrogate characters are not allowed: U+${code.toString(16).toUpperCase()}.`;
    }
  }
  return undefined;
}

function toStringValue(value: JsonValue, field: Pick<StringField, 'allowBlank' | 'maxLength' | 'format'>, unique?: () => string | undefined): string {
  if (typeof value === 'boolean' || (typeof value !== 'string' && typeof value !== 'number')) fail(MESSAGES.notAString);
  const text = pyStr(value).trim();
  if (text === '') {
    if (!field.allowBlank) fail(MESSAGES.blank);
    return '';
  }
  // DRF runs every validator and reports all that fail: format, uniqueness, length, characters.
  const errors: string[] = [];
  if (field.format === 'address' && !isAddressOrHostName(text)) errors.push(MESSAGES.invalidAddress);
  if (field.format === 'email' && !EMAIL.test(text)) errors.push(MESSAGES.invalidEmail);
  if (field.format === 'username' && !USERNAME.test(text)) errors.push(MESSAGES.invalidUsername);
  const taken = unique?.();
  if (taken) errors.push(taken);
  if (field.maxLength !== undefined && [...text].length > field.maxLength) errors.push(message.maxLength(field.maxLength));
  if (text.includes('\0')) errors.push(MESSAGES.nullCharacters);
  const surrogate = surrogateError(text);
  if (surrogate) errors.push(surrogate);
  if (errors.length) throw new FieldError(errors);
  return text;
}

function toChoice(value: JsonValue, choices: readonly string[]): string {
  const text = pyStr(value);
  if (value === null || typeof value === 'object' || !choices.includes(text)) fail(message.invalidChoice(text));
  return text;
}

/**
 * DRF's PrimaryKeyRelatedField: the value goes to the database as Python's `int()` makes it (a
 * float is truncated, a string parsed with Python's syntax); what `int()` refuses is an
 * incorrect type, and `null` simply matches nothing.
 */
function toPk(value: JsonValue, target: string, lookups: Lookups): number {
  if (value === null) return fail(message.invalidPk('None'));
  if (typeof value === 'boolean' || typeof value === 'object') {
    return fail(message.incorrectPkType(pythonTypeName(value)));
  }
  const pk = typeof value === 'number' ? Math.trunc(value) : pythonInt(value);
  if (pk === undefined) return fail(message.incorrectPkType('str'));
  const safe = typeof pk === 'bigint' ? (pk >= Number.MIN_SAFE_INTEGER && pk <= Number.MAX_SAFE_INTEGER ? Number(pk) : NaN) : pk;
  if (!Number.isSafeInteger(safe) || !lookups.refExists(target, safe)) fail(message.invalidPk(pyStr(value)));
  return safe;
}

function toRef(value: JsonValue, field: RefField, lookups: Lookups): number | null {
  if (value === '' || value === null) {
    if (!field.nullable) fail(MESSAGES.null);
    return null;
  }
  return toPk(value, field.target, lookups);
}

function toRefList(value: JsonValue, field: RefListField, lookups: Lookups): number[] {
  if (typeof value === 'string' || typeof value !== 'object' || value === null) {
    return fail(message.expectedList(pythonTypeName(value)));
  }
  const items = Array.isArray(value) ? value : Object.keys(value);
  // One database lookup per distinct value: a list repeating one pk a million times asks once.
  const known = new Map<JsonValue, number>();
  const pks = new Set<number>();
  for (const item of items) {
    let pk = known.get(item);
    if (pk === undefined) {
      pk = toPk(item, field.target, lookups);
      known.set(item, pk);
    }
    pks.add(pk);
  }
  return [...pks];
}

/** A wrong choice's detail: made once per distinct value and shared, frozen (a list may repeat one). */
function choiceErrorsOf(): (item: JsonValue) => JsonValue {
  const made = new Map<JsonValue, JsonValue>();
  return (item) => {
    let detail = made.get(item);
    if (detail === undefined) {
      detail = [item === null ? MESSAGES.null : message.invalidChoice(pyStr(item))];
      Object.freeze(detail);
      made.set(item, detail);
    }
    return detail;
  };
}

function toChoiceList(value: JsonValue, field: ChoiceListField): string[] {
  if (!Array.isArray(value)) return fail(message.expectedList(pythonTypeName(value)));
  const errorOf = choiceErrorsOf();
  let errors: Record<string, JsonValue> | undefined;
  const out: string[] = [];
  value.forEach((item, index) => {
    if (item !== null && typeof item !== 'object') {
      const text = pyStr(item);
      if (field.choices.includes(text)) {
        out.push(text);
        return;
      }
    }
    errors ??= {};
    errors[index] = errorOf(item);
  });
  if (errors !== undefined) throw new FieldError(errors);
  return [...new Set(out)];
}

/**
 * `{"non_field_errors": [...]}` of an item that is not an object: one frozen value per Python type,
 * shared by every such item (a list of a million numbers lists one object a million times).
 */
const notAnItemErrors = new Map<string, JsonObject>();
function notAnItem(item: JsonValue): JsonObject {
  const type = pythonTypeName(item);
  let errors = notAnItemErrors.get(type);
  if (errors === undefined) {
    const messages: JsonValue[] = [message.expectedDictionary(type)];
    errors = { non_field_errors: messages };
    Object.freeze(messages);
    Object.freeze(errors);
    notAnItemErrors.set(type, errors);
  }
  return errors;
}

function toItems(value: JsonValue, field: ItemsField): ItemInput[] {
  if (!Array.isArray(value)) {
    throw new FieldError({ non_field_errors: [message.expectedList(pythonTypeName(value))] });
  }
  // Per-item errors are listed only once one item fails: a valid list of thousands allocates none.
  let errors: JsonValue[] | undefined;
  const items: ItemInput[] = [];
  value.forEach((item, index) => {
    if (typeof item !== 'object' || item === null || Array.isArray(item)) {
      errors ??= Array.from({ length: index }, () => ({}));
      errors.push(notAnItem(item));
      return;
    }
    const itemErrors: JsonObject = {};
    let name = '';
    let flag = true;
    if (item.name === undefined) itemErrors.name = [MESSAGES.required];
    else if (item.name === null) itemErrors.name = [MESSAGES.null];
    else {
      try {
        name = toStringValue(item.name, { maxLength: field.nameMaxLength });
      } catch (error) {
        if (!(error instanceof FieldError)) throw error;
        itemErrors.name = error.detail;
      }
    }
    const rawFlag = item[field.flag];
    if (rawFlag === null) itemErrors[field.flag] = [MESSAGES.null];
    else if (rawFlag !== undefined) {
      try {
        flag = toBoolean(rawFlag);
      } catch (error) {
        if (!(error instanceof FieldError)) throw error;
        itemErrors[field.flag] = error.detail;
      }
    }
    if (errors === undefined && Object.keys(itemErrors).length > 0) errors = Array.from({ length: index }, () => ({}));
    errors?.push(itemErrors);
    items.push({ name, flag });
  });
  if (errors !== undefined) throw new FieldError(errors);
  // Only a list that repeats a name gets the per-item list of repeats.
  if (new Set(items.map((item) => item.name)).size < items.length) {
    const seen = new Set<string>();
    throw new FieldError(
      items.map((item): JsonObject => {
        const again = seen.has(item.name);
        seen.add(item.name);
        return again ? { name: [MESSAGES.nameRepeated] } : {};
      }),
    );
  }
  return items;
}

function toDate(value: JsonValue): string {
  const date = typeof value === 'string' ? parseIsoDate(value) : undefined;
  if (!date) return fail(MESSAGES.invalidDate);
  return formatDate(date);
}

/** One field's value, validated; throws FieldError with DRF's detail for that field. */
function validateValue(name: string, field: Field, value: JsonValue, resource: Resource, lookups: Lookups): JsonValue {
  if (value === null) return field.nullable ? null : fail(MESSAGES.null);
  switch (field.kind) {
    case 'string': {
      const unique =
        resource.unique?.field === name
          ? () => (typeof value === 'string' || typeof value === 'number') && lookups.uniqueTaken(pyStr(value).trim()) ? resource.unique!.message : undefined
          : undefined;
      return toStringValue(value, field, unique);
    }
    case 'integer':
      return toInteger(value, field);
    case 'boolean':
      return toBoolean(value);
    case 'choice':
      return toChoice(value, field.choices);
    case 'ref':
      return toRef(value, field, lookups);
    case 'refList':
      return toRefList(value, field, lookups);
    case 'choiceList':
      return toChoiceList(value, field);
    case 'date':
      return toDate(value);
    case 'json':
      return value;
    case 'datetime':
    case 'items':
      throw new Error(`${name}: not validated here`);
  }
}

/**
 * One value of a field checked as a write checks it, whether the field is writable or not: what
 * a stored row must hold (a workspace bundle's, app.md §2). A read-only text may be blank (its
 * column's default); datetimes and item lists are checked elsewhere. The value as a write would
 * store it, or DRF's detail for the field.
 */
export function checkFieldValue(name: string, field: Field, value: JsonValue, resource: Resource, lookups: Lookups): { value: JsonValue } | { errors: JsonValue } {
  const declared: Field = field.readOnly && field.kind === 'string' ? { ...field, allowBlank: true } : field;
  try {
    return { value: validateValue(name, declared, value, resource, lookups) };
  } catch (error) {
    if (error instanceof FieldError) return { errors: error.detail };
    throw error;
  }
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The body must be a JSON object: DRF's `non_field_errors` otherwise (`null` has its own words). */
export function requireObject(body: JsonValue): JsonObject {
  if (body === null) throw ApiError.validation({ non_field_errors: [MESSAGES.noData] });
  if (!isObject(body)) {
    throw ApiError.validation({ non_field_errors: [message.expectedDictionary(pythonTypeName(body))] });
  }
  return body;
}

/**
 * Validate a write. Unknown keys and read-only fields are ignored; on create absent fields take
 * their defaults; on PATCH nothing is required; on PUT the required fields are. Throws ApiError
 * 400 with every field's errors, in field order.
 */
export function validateWrite(resource: Resource, body: JsonValue, mode: WriteMode, lookups: Lookups): ValidatedWrite {
  const data = requireObject(body);
  const values: Record<string, JsonValue> = {};
  const items: Record<string, ItemInput[]> = {};
  let comment: string | null | undefined;
  const errors: FieldErrors = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly) continue;
    const value = data[name];
    if (value === undefined) {
      if (mode !== 'partial' && field.required) errors[name] = [MESSAGES.required];
      else if (mode === 'create' && field.default !== undefined) {
        if (field.kind === 'items') items[name] = [];
        else values[name] = field.default;
      }
      continue;
    }
    try {
      if (field.kind === 'items') items[name] = toItems(value, field);
      else if (name === 'comment') {
        const text = validateValue(name, field, value, resource, lookups);
        comment = text === null ? null : String(text);
      } else values[name] = validateValue(name, field, value, resource, lookups);
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      errors[name] = error.detail;
    }
  }
  if (Object.keys(errors).length) throw ApiError.validation(errors);
  return { values, items, comment };
}

const COMMENT: StringField = { kind: 'string', label: 'Comment', allowBlank: true, nullable: true };

/** A write's `comment` alone (DELETE and actions): absent, null or a string; 400 otherwise. */
export function validateComment(body: JsonValue): string | null | undefined {
  const value = requireObject(body).comment;
  if (value === undefined || value === null) return value as null | undefined;
  try {
    return toStringValue(value, COMMENT);
  } catch (error) {
    if (error instanceof FieldError) throw ApiError.validation({ comment: error.detail });
    throw error;
  }
}
