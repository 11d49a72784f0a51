/**
 * OPTIONS answers in DRF's SimpleMetadata shape, derived from the resource declaration.
 */
import type { Field, JsonObject, Resource } from '../../../shared/resources';
import type { Action } from '../routing/endpoint';

export type Fields = Readonly<Record<string, Field>>;

/** A POST action that takes a form of its own (DRF: an action with its own serializer class). */
export interface ActionWithForm extends Action {
  readonly form: Fields;
}

/** The form OPTIONS shows for a POST action: its own, or undefined for the endpoint's. */
export function actionForm(action: Action | undefined): Fields | undefined {
  return action !== undefined && 'form' in action ? (action as ActionWithForm).form : undefined;
}

function fieldType(field: Field): string {
  switch (field.kind) {
    case 'string':
      return field.format === 'email' ? 'email' : 'string';
    case 'integer':
    case 'boolean':
    case 'choice':
    case 'datetime':
    case 'date':
      return field.kind;
    case 'choiceList':
      return 'list';
    default:
      return 'field';
  }
}

const choicesOf = (choices: readonly string[]) => choices.map((value) => ({ value, display_name: value }));

/** One field's description, keys in DRF's order. */
export function fieldInfo(field: Field): JsonObject {
  const info: JsonObject = {
    type: fieldType(field),
    required: Boolean(field.required) && !field.readOnly,
    read_only: Boolean(field.readOnly),
    label: field.label,
  };
  if (field.helpText) info.help_text = field.helpText;
  if (field.kind === 'string' && field.maxLength !== undefined) info.max_length = field.maxLength;
  if (field.kind === 'integer') {
    if (field.min !== undefined) info.min_value = field.min;
    if (field.max !== undefined) info.max_value = field.max;
  }
  if (field.kind === 'choiceList') {
    info.child = { type: 'choice', required: true, read_only: false, choices: choicesOf(field.choices) };
  }
  if (field.kind === 'items') {
    info.child = {
      type: 'nested object',
      required: false,
      read_only: false,
      children: {
        pk: { type: 'integer', required: false, read_only: true, label: 'ID' },
        name: { type: 'string', required: true, read_only: false, label: 'Name', max_length: field.nameMaxLength },
        [field.flag]: { type: 'boolean', required: false, read_only: false, label: field.flagLabel },
      },
    };
  }
  if (field.kind === 'choice' && !field.readOnly) info.choices = choicesOf(field.choices);
  return info;
}

export function fieldsInfo(fields: Fields): JsonObject {
  const out: JsonObject = {};
  for (const [name, field] of Object.entries(fields)) out[name] = fieldInfo(field);
  return out;
}

export interface MetadataOptions {
  readonly name: string;
  readonly description: string;
  /** `POST` on a list, `PUT` on an existing object the caller may change; none otherwise. */
  readonly action?: 'POST' | 'PUT';
  readonly resource?: Resource;
  /** The form described, when not the resource's fields. */
  readonly fields?: Fields;
}

export function metadata(options: MetadataOptions): JsonObject {
  const out: JsonObject = {
    name: options.name,
    description: options.description,
    renders: ['application/json', 'text/html'],
    parses: ['application/json'],
  };
  if (options.action && options.resource) out.actions = { [options.action]: fieldsInfo(options.fields ?? options.resource.fields) };
  return out;
}
