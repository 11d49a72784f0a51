/**
 * The form of any writable resource, built from its declaration (shared/resources): one input
 * per writable field, interfaces and protocols as tables, each API error next to its field, an
 * optional comment for the history, and — for templates and first-family probes — inherited
 * fields shown as such, with controls to override them and to return to the template's value.
 */
import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { INHERITABLE, type Field, type ItemsField, type JsonObject, type JsonValue, type Resource } from '../../../shared/resources';
import { ApiFailure, api } from '../api/client';
import { ItemsTable, type ItemRow } from './ItemsTable';

export interface RefOption {
  readonly value: number;
  readonly label: string;
}

interface Props {
  readonly resource: Resource;
  /** The object as the API shows it (editing), or undefined (creating). */
  readonly object?: JsonObject | undefined;
  /** Choices for reference fields (parent_tmpl, ruleset, sources). */
  readonly refOptions?: Readonly<Record<string, readonly RefOption[]>>;
  /** Send the payload (PATCH or POST); an ApiFailure's field errors are shown on the form. */
  readonly onSubmit: (payload: JsonObject) => Promise<void>;
  readonly submitLabel: string;
  readonly onCancel?: () => void;
  /** Fields not to show (set by the screen). */
  readonly hidden?: readonly string[];
}

const INHERITABLE_NAMES: readonly string[] = INHERITABLE;

function messagesOf(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === 'string' ? [v] : messagesOf(v)));
  if (typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => messagesOf(v).map((m) => (/^\d+$/.test(k) ? `item ${Number(k) + 1}: ${m}` : m)));
  return [String(value)];
}

function itemsOf(value: JsonValue | undefined, flag: string): ItemRow[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) =>
    typeof item === 'object' && item !== null && !Array.isArray(item)
      ? [{ ...(typeof item.pk === 'number' ? { pk: item.pk } : {}), name: String(item.name ?? ''), flag: item[flag] !== false }]
      : [],
  );
}

function initialValues(resource: Resource, object: JsonObject | undefined): JsonObject {
  const values: JsonObject = {};
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.readOnly || field.writeOnly) continue;
    values[name] = object?.[name] ?? field.default ?? (field.kind === 'string' ? '' : null);
  }
  return values;
}

function sameJson(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

/** The template an object inherits from, fetched when parent_tmpl names one. */
function useTemplate(pk: JsonValue | undefined): JsonObject | undefined {
  const [template, setTemplate] = useState<JsonObject | undefined>();
  useEffect(() => {
    setTemplate(undefined);
    if (typeof pk !== 'number') return;
    const controller = new AbortController();
    api
      .get(`/rest/appliances/vendor_probe_template/${pk}/`, undefined, controller.signal)
      .then(setTemplate)
      .catch(() => undefined);
    return () => controller.abort();
  }, [pk]);
  return template;
}

function FieldInput({
  name,
  field,
  value,
  disabled,
  onChange,
  options,
  invalid,
}: {
  name: string;
  field: Field;
  value: JsonValue;
  disabled: boolean;
  onChange: (value: JsonValue) => void;
  options?: readonly RefOption[] | undefined;
  invalid: boolean;
}) {
  const id = `field-${name}`;
  const common = { id, disabled, 'aria-invalid': invalid, 'aria-describedby': invalid ? `${id}-errors` : undefined };
  switch (field.kind) {
    case 'boolean':
      return <input type="checkbox" {...common} checked={value === true} onChange={(e) => onChange(e.target.checked)} />;
    case 'integer':
      return (
        <input
          type="number"
          {...common}
          min={field.min}
          max={field.max}
          value={value === null || value === undefined ? '' : String(value)}
          onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}
        />
      );
    case 'choice':
      return (
        <select {...common} value={String(value ?? '')} onChange={(e) => onChange(e.target.value)}>
          {field.choices.map((choice) => (
            <option key={choice} value={choice}>
              {choice}
            </option>
          ))}
        </select>
      );
    case 'ref':
      return (
        <select {...common} value={value === null || value === undefined ? '' : String(value)} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
          {field.nullable && <option value="">(none)</option>}
          {(options ?? []).map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    case 'refList': {
      const chosen = new Set(Array.isArray(value) ? value : []);
      return (
        <fieldset {...common} className="choices">
          {(options ?? []).map((option) => (
            <label key={option.value}>
              <input
                type="checkbox"
                checked={chosen.has(option.value)}
                onChange={(e) => onChange((options ?? []).filter((o) => (o.value === option.value ? e.target.checked : chosen.has(o.value))).map((o) => o.value))}
              />
              {option.label}
            </label>
          ))}
        </fieldset>
      );
    }
    default:
      return (
        <input
          type={field.kind === 'date' ? 'date' : field.kind === 'string' && field.format === 'password' ? 'password' : 'text'}
          {...common}
          maxLength={field.kind === 'string' ? field.maxLength : undefined}
          value={value === null || value === undefined ? '' : String(value)}
          onChange={(e) => onChange(e.target.value)}
        />
      );
  }
}

export function ResourceForm({ resource, object, refOptions = {}, onSubmit, submitLabel, onCancel, hidden = [] }: Props) {
  const inheriting = 'overriden_fields' in resource.fields;
  const [values, setValues] = useState<JsonObject>(() => initialValues(resource, object));
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<Record<string, JsonValue>>({});
  const [failure, setFailure] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    setValues(initialValues(resource, object));
    setErrors({});
    setFailure(undefined);
  }, [resource, object]);

  const template = useTemplate(inheriting ? values.parent_tmpl : undefined);
  const overrides = useMemo(() => (Array.isArray(values.overriden_fields) ? values.overriden_fields.map(String) : []), [values.overriden_fields]);
  const inherited = (name: string) => inheriting && values.parent_tmpl !== null && values.parent_tmpl !== undefined && INHERITABLE_NAMES.includes(name) && !overrides.includes(name);
  const set = (name: string, value: JsonValue) => setValues((current) => ({ ...current, [name]: value }));
  const setOverride = (name: string, on: boolean) => {
    const next = on ? [...overrides, name] : overrides.filter((f) => f !== name);
    setValues((current) => ({
      ...current,
      overriden_fields: next,
      // Given back to the template: show (and send nothing but) the template's value.
      ...(on || !template ? {} : { [name]: template[name] ?? null }),
    }));
  };

  const payload = (): JsonObject => {
    const out: JsonObject = {};
    for (const [name, field] of Object.entries(resource.fields)) {
      if (field.readOnly || field.writeOnly || hidden.includes(name) || inherited(name)) continue;
      if (name === 'overriden_fields' && !inheriting) continue;
      const value = values[name];
      if (value === undefined) continue;
      if (object && sameJson(value, object[name])) continue;
      out[name] = field.kind === 'items' ? itemsPayload(value, (field as ItemsField).flag) : value;
    }
    if (inheriting && (!object || !sameJson(values.overriden_fields, object.overriden_fields))) out.overriden_fields = overrides;
    if (comment.trim()) out.comment = comment.trim();
    return out;
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(undefined);
    try {
      await onSubmit(payload());
      setErrors({});
      setComment('');
    } catch (error) {
      if (error instanceof ApiFailure) {
        const fields = error.fieldErrors();
        setErrors(fields);
        const general = [...messagesOf(fields.non_field_errors), ...messagesOf(fields.detail)];
        const unplaced = Object.keys(fields).filter((k) => k !== 'non_field_errors' && k !== 'detail' && !(k in resource.fields));
        setFailure(general.length > 0 || unplaced.length > 0 || Object.keys(fields).length === 0 ? [...general, ...unplaced.map((k) => `${k}: ${messagesOf(fields[k]).join(' ')}`), ...(Object.keys(fields).length === 0 ? [error.message] : [])].join(' ') : 'Some fields need attention.');
      } else {
        setFailure(error instanceof Error ? error.message : String(error));
      }
    } finally {
      setBusy(false);
    }
  };

  const fieldRows = Object.entries(resource.fields).filter(
    ([name, field]) => !field.readOnly && !field.writeOnly && !hidden.includes(name) && field.kind !== 'choiceList',
  );

  return (
    <form className="resource-form" onSubmit={(e) => void submit(e)} aria-label={`${resource.title} form`} noValidate>
      {failure && (
        <p className="notice error" role="alert">
          {failure}
        </p>
      )}
      {fieldRows.map(([name, field]) => {
        const isInherited = inherited(name);
        const fieldErrors = errors[name];
        const messages = field.kind === 'items' ? [] : messagesOf(fieldErrors);
        const shownValue = isInherited && template ? (template[name] ?? null) : (values[name] ?? null);
        const controls = inheriting && INHERITABLE_NAMES.includes(name) && values.parent_tmpl !== null && values.parent_tmpl !== undefined && (
          <span className="inheritance">
            {isInherited ? (
              <>
                <span className="badge">inherited from {template ? String(template.name) : 'the template'}</span>
                <button type="button" className="link" onClick={() => setOverride(name, true)} aria-label={`Override ${field.label}`}>
                  Override
                </button>
              </>
            ) : (
              <>
                <span className="badge overridden">overridden</span>
                <button type="button" className="link" onClick={() => setOverride(name, false)} aria-label={`Use the template's ${field.label}`}>
                  Use template value
                </button>
              </>
            )}
          </span>
        );
        if (field.kind === 'items') {
          return (
            <div key={name} className="field field-items">
              {controls}
              <ItemsTable
                id={`field-${name}`}
                label={field.label}
                flagLabel={field.flagLabel}
                rows={itemsOf(shownValue, field.flag)}
                disabled={isInherited || busy}
                onChange={(rows) => set(name, rows.map((r) => ({ ...(r.pk === undefined ? {} : { pk: r.pk }), name: r.name, [field.flag]: r.flag })))}
                errors={fieldErrors}
              />
            </div>
          );
        }
        return (
          <div key={name} className={`field field-${field.kind}`}>
            <label htmlFor={`field-${name}`}>
              {field.label}
              {field.required && <span aria-hidden="true"> *</span>}
            </label>
            <FieldInput
              name={name}
              field={field}
              value={shownValue}
              disabled={isInherited || busy}
              onChange={(value) => set(name, value)}
              options={refOptions[name]}
              invalid={messages.length > 0}
            />
            {controls}
            {messages.length > 0 && (
              <span className="field-error" id={`field-${name}-errors`}>
                {messages.join(' ')}
              </span>
            )}
          </div>
        );
      })}
      {'comment' in resource.fields && (
        <div className="field field-comment">
          <label htmlFor={`comment-${resource.name}`}>Comment for the history (optional)</label>
          <textarea id={`comment-${resource.name}`} value={comment} rows={2} onChange={(e) => setComment(e.target.value)} />
          {messagesOf(errors.comment).length > 0 && <span className="field-error">{messagesOf(errors.comment).join(' ')}</span>}
        </div>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}

function itemsPayload(value: JsonValue, flag: string): JsonValue {
  if (!Array.isArray(value)) return value;
  return value.map((item) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? { name: item.name ?? '', [flag]: item[flag] !== false } : item));
}
