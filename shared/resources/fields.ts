/**
 * Field kinds of the API's resources. One field declaration drives validation, SQL, list
 * parameters, OPTIONS, the browsable page and the renderer's forms.
 */

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

interface FieldCommon {
  /** DRF label (verbose name), shown by OPTIONS and forms. */
  readonly label: string;
  /** Required on create and on PUT. */
  readonly required?: boolean;
  readonly readOnly?: boolean;
  readonly writeOnly?: boolean;
  /** null is accepted on write. */
  readonly nullable?: boolean;
  /** Value given to a new object when the field is absent. */
  readonly default?: JsonValue;
  readonly helpText?: string;
}

export interface IntegerField extends FieldCommon {
  readonly kind: 'integer';
  readonly min?: number;
  readonly max?: number;
}

export interface StringField extends FieldCommon {
  readonly kind: 'string';
  readonly maxLength?: number;
  /** '' accepted (Django blank=True). */
  readonly allowBlank?: boolean;
  /** Extra syntax checks beyond length. */
  readonly format?: 'address' | 'email' | 'username' | 'password';
}

export interface BooleanField extends FieldCommon {
  readonly kind: 'boolean';
}

export interface ChoiceField extends FieldCommon {
  readonly kind: 'choice';
  readonly choices: readonly string[];
}

export interface DateTimeField extends FieldCommon {
  readonly kind: 'datetime';
}

export interface DateField extends FieldCommon {
  readonly kind: 'date';
}

/** The pk of an object of another resource. */
export interface RefField extends FieldCommon {
  readonly kind: 'ref';
  readonly target: string;
}

/** A list of pks of objects of another resource. */
export interface RefListField extends FieldCommon {
  readonly kind: 'refList';
  readonly target: string;
  /** The join table holding the list: its column naming the owner and the one naming the target. */
  readonly through: { readonly table: string; readonly owner: string; readonly target: string };
}

/** Interfaces and protocols: a list of `{name, <flag>}` owned by the object, replaced by name. */
export interface ItemsField extends FieldCommon {
  readonly kind: 'items';
  readonly flag: 'active' | 'detection';
  readonly flagLabel: string;
  /** The table holding the items, one row each, with the owner's pk in its owner column. */
  readonly table: string;
  readonly nameMaxLength: number;
}

/** A list of strings each taken from `choices` (overriden_fields). */
export interface ChoiceListField extends FieldCommon {
  readonly kind: 'choiceList';
  readonly choices: readonly string[];
}

/** Free JSON (threat links). */
export interface JsonField extends FieldCommon {
  readonly kind: 'json';
}

export type Field =
  | IntegerField
  | StringField
  | BooleanField
  | ChoiceField
  | DateTimeField
  | DateField
  | RefField
  | RefListField
  | ItemsField
  | ChoiceListField
  | JsonField;

export type FieldKind = Field['kind'];

export function isWritable(field: Field): boolean {
  return !field.readOnly;
}
