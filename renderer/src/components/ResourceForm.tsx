/**
 * The form of any writable resource, built from its declaration (shared/resources): one input
 * per writable field, interfaces and protocols as tables, each API error next to its field, an
 * optional comment for the history, and — for templates and first-family probes — inherited
 * fields shown as such, with controls to override them and to return to the template's value.
 *
 * Only what changed is sent (a PATCH of the changed fields, as the sync engine's outbox keeps
 * them), so a stale form meets the API's own refusals instead of silently undoing a colleague's
 * change; those refusals are shown where they belong.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { vendorProbeTemplate, type Field, type JsonObject, type JsonValue, type Resource } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { ApiFailure, api } from '../api/client';
import { useQuery } from '../data/useQuery';
import { ItemsTable } from './ItemsTable';
import {
  INHERITABLE_NAMES,
  comparable,
  formPayload,
  generalMessages,
  initialValues,
  isWritableField,
  itemsOf,
  fieldMessages, messagesOf,
  overridesIn,
  type RefChoices,
  type RefOption,
} from './resourceFormModel';
import './ResourceForm.css';

interface Props {
  readonly resource: Resource;
  /** The object as the API shows it (editing), or undefined (creating). */
  readonly object?: JsonObject | undefined;
  /** Values a new object starts with (e.g. `parent_tmpl` when creating under a template). */
  readonly initial?: JsonObject | undefined;
  /** Choices for reference fields (parent_tmpl, ruleset, sources). */
  readonly refOptions?: Readonly<Record<string, RefChoices>>;
  /** Send the payload (PATCH or POST); an ApiFailure's field errors are shown on the form. */
  readonly onSubmit: (payload: JsonObject) => Promise<void>;
  readonly submitLabel: string;
  readonly onCancel?: () => void;
  /** Fields not to show (set by the screen). */
  readonly hidden?: readonly string[];
  /** Labels to show instead of the declaration's (which are the API's verbose names). */
  readonly labels?: Readonly<Record<string, string>>;
}

/**
 * The template an object inherits from, fetched when parent_tmpl names one, and again whenever
 * the object itself is reloaded (the template may have changed too).
 */
function useTemplate(pk: JsonValue | undefined, object: JsonObject | undefined): { template: JsonObject | undefined; error: string | undefined } {
  const path = typeof pk === 'number' ? `${listPath(vendorProbeTemplate)}${pk}/` : undefined;
  // A reload of the same template keeps showing the values read before until the new ones come.
  const { data, error } = useQuery(path, (signal) => api.get(path!, undefined, signal), { refreshOn: object });
  return error ? { template: undefined, error: error.message } : { template: data, error: undefined };
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
  const common = { id, disabled, 'aria-invalid': invalid, 'aria-describedby': invalid ? `${id}-errors` : undefined, 'aria-required': field.required === true ? true : undefined };
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
    case 'ref': {
      const known = (options ?? []).some((o) => o.value === value);
      return (
        <select {...common} value={value === null || value === undefined ? '' : String(value)} onChange={(e) => onChange(e.target.value === '' ? null : Number(e.target.value))}>
          {field.nullable && <option value="">(none)</option>}
          {/* The current value stays selectable while the choices load, or if it is not among them. */}
          {!known && typeof value === 'number' && <option value={value}>#{value}</option>}
          {(options ?? []).map((option) => (
            <option key={option.value} value={option.value} disabled={option.disabled === true && option.value !== value}>
              {option.label}
            </option>
          ))}
        </select>
      );
    }
    case 'refList': {
      const chosen = new Set(Array.isArray(value) ? value : []);
      return (
        <fieldset {...common} className="choices">
          {(options ?? []).map((option) => (
            <label key={option.value}>
              <input
                type="checkbox"
                checked={chosen.has(option.value)}
                disabled={option.disabled === true}
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

export function ResourceForm({ resource, object, initial, refOptions = {}, onSubmit, submitLabel, onCancel, hidden = [], labels = {} }: Props) {
  const inheriting = 'overriden_fields' in resource.fields;
  const [values, setValues] = useState<JsonObject>(() => initialValues(resource, object, initial));
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<Record<string, JsonValue>>({});
  const [failure, setFailure] = useState<readonly string[]>([]);
  const [notice, setNotice] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  /** Selectors tried in turn after the next render: where the keyboard should go. */
  const [focusTarget, setFocusTarget] = useState<readonly string[] | undefined>();
  const form = useRef<HTMLFormElement>(null);
  // `initial` is read when the form starts and when another object is shown, not on every render.
  const initialRef = useRef(initial);
  initialRef.current = initial;
  useEffect(() => {
    setValues(initialValues(resource, object, initialRef.current));
    setErrors({});
    setFailure([]);
    setNotice(undefined);
  }, [resource, object]);

  useEffect(() => {
    if (!focusTarget || !form.current) return;
    setFocusTarget(undefined);
    for (const selector of focusTarget) {
      const target = form.current.querySelector<HTMLElement>(selector);
      if (target) {
        target.focus();
        return;
      }
    }
  }, [focusTarget]);

  const labelOf = (name: string) => labels[name] ?? resource.fields[name]?.label ?? name;
  const parent = inheriting ? values.parent_tmpl : undefined;
  const hasParent = typeof parent === 'number';
  const { template, error: templateError } = useTemplate(hasParent ? parent : undefined, object);
  const overrides = useMemo(() => overridesIn(values.overriden_fields), [values.overriden_fields]);
  const inheritable = (name: string) => inheriting && INHERITABLE_NAMES.includes(name);
  const inherited = (name: string) => inheritable(name) && hasParent && !overrides.includes(name);
  // An existing object under the same parent shows its own values (what it and its children
  // really have); a new object, or a new parent, shows the template's.
  const ownValuesShown = object !== undefined && object.parent_tmpl === parent;
  const shownValue = (name: string): JsonValue => {
    if (inherited(name) && !ownValuesShown && template) return template[name] ?? null;
    return values[name] ?? null;
  };
  const set = (name: string, value: JsonValue) => setValues((current) => ({ ...current, [name]: value }));
  const setOverride = (name: string, on: boolean) => {
    const field = resource.fields[name];
    setValues((current) => {
      const now = overridesIn(current.overriden_fields);
      const next = on ? [...now.filter((f) => f !== name), name] : now.filter((f) => f !== name);
      // Overriding starts from the value shown; giving back shows the template's value again.
      const value = on ? shownValue(name) : template ? (template[name] ?? null) : current[name];
      return { ...current, overriden_fields: next, [name]: value ?? null };
    });
    setFocusTarget(on ? (field?.kind === 'items' ? [`#field-${name} tbody input`, `#field-${name} .items-add`] : [`#field-${name}`]) : [`[data-override="${name}"]`]);
  };

  const changes = formPayload({ resource, values, object, hidden, inherited });
  const dirty = object !== undefined && Object.keys(changes).length > 0;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    if (object && Object.keys(changes).length === 0) {
      setFailure([]);
      setErrors({});
      setNotice('Nothing to save: no field was changed.');
      return;
    }
    setBusy(true);
    setFailure([]);
    try {
      await onSubmit({ ...changes, ...(comment.trim() ? { comment: comment.trim() } : {}) });
      setErrors({});
      setComment('');
    } catch (error) {
      if (error instanceof ApiFailure) {
        const fields = error.fieldErrors();
        setErrors(fields);
        setFailure(generalMessages(fields, [...shownNames, 'comment'], labelOf, error.message));
        setFocusTarget(['[aria-invalid="true"]:not(:disabled)', '.notice.error']);
      } else {
        setFailure([error instanceof Error ? error.message : String(error)]);
      }
    } finally {
      setBusy(false);
    }
  };

  const fieldRows = Object.entries(resource.fields).filter(([name, field]) => isWritableField(field) && !hidden.includes(name) && field.kind !== 'choiceList');
  const shownNames = fieldRows.map(([name]) => name);

  const inheritanceControls = (name: string): ReactNode => {
    if (!inheritable(name) || !hasParent) return null;
    const label = labelOf(name);
    const templateName = template ? String(template.name) : 'the template';
    if (inherited(name)) {
      return (
        <span className="inheritance">
          <span className="badge" title={`The value of ${templateName}`}>
            inherited
          </span>
          <button type="button" className="link" data-override={name} onClick={() => setOverride(name, true)} aria-label={`Override ${label}`}>
            Override
          </button>
        </span>
      );
    }
    return (
      <span className="inheritance">
        <span className="badge overridden" title={`Not taken from ${templateName}`}>
          overridden
        </span>
        <button type="button" className="link" data-override={name} onClick={() => setOverride(name, false)} aria-label={`Use the template's ${label}`}>
          Use template value
        </button>
      </span>
    );
  };

  /**
   * An inherited value that is not the template's: rule 5's exception (a template used by probes
   * keeps its protocols when its parent's change), or the template changed since the form loaded.
   */
  const differenceNote = (name: string): ReactNode => {
    if (!inherited(name) || !ownValuesShown || !template || comparable(values[name]) === comparable(template[name])) return null;
    const why = name === 'protocols' ? 'its changes are not handed down to a template used by probes.' : 'reload to see the current values.';
    return (
      <span className="inherit-note">
        Differs from {String(template.name)}: {why}
      </span>
    );
  };

  const renderField = ([name, field]: [string, Field]) => {
    const isInherited = inherited(name);
    const fieldErrors = errors[name];
    const label = labelOf(name);
    if (field.kind === 'items') {
      return (
        <div key={name} className={`field field-items${isInherited ? ' is-inherited' : ''}`}>
          <ItemsTable
            id={`field-${name}`}
            label={label}
            flagLabel={field.flagLabel}
            rows={itemsOf(shownValue(name), field.flag)}
            disabled={isInherited || busy}
            readOnly={isInherited}
            nameMaxLength={field.nameMaxLength}
            onChange={(rows) => set(name, rows.map((r) => ({ ...(r.pk === undefined ? {} : { pk: r.pk }), name: r.name, [field.flag]: r.flag })))}
            errors={fieldErrors}
            legendExtra={inheritanceControls(name)}
          />
          {differenceNote(name)}
        </div>
      );
    }
    const messages = fieldMessages(field, fieldErrors);
    return (
      <div
        key={name}
        className={`field field-${field.kind}${isInherited ? ' is-inherited' : ''}${field.required ? ' required' : ''}${inheritable(name) && hasParent ? ' has-controls' : ''}`}
      >
        {/* The label is the field's name alone (tests and screen readers find it so); the input says it is required. */}
        <label htmlFor={`field-${name}`}>{label}</label>
        <FieldInput
          name={name}
          field={field}
          value={shownValue(name)}
          disabled={isInherited || busy}
          onChange={(value) => set(name, value)}
          options={refOptions[name]?.options}
          invalid={messages.length > 0}
        />
        {inheritanceControls(name)}
        {differenceNote(name)}
        {refOptions[name]?.error && (
          <span className="field-error" role="alert">
            The choices could not be read: {refOptions[name].error}
          </span>
        )}
        {messages.length > 0 && (
          <span className="field-error" id={`field-${name}-errors`}>
            {messages.join(' ')}
          </span>
        )}
      </div>
    );
  };

  const inGroup = (name: string) => inheriting && (name === 'parent_tmpl' || INHERITABLE_NAMES.includes(name));
  const own = fieldRows.filter(([name]) => !inGroup(name));
  const grouped = fieldRows.filter(([name]) => inGroup(name));

  return (
    <form ref={form} className="resource-form" onSubmit={(e) => void submit(e)} aria-label={`${resource.title} form`} noValidate>
      {failure.length > 0 && (
        <div className="notice error" role="alert" tabIndex={-1}>
          {failure.map((text) => (
            <p key={text}>{text}</p>
          ))}
        </div>
      )}
      {own.map(renderField)}
      {grouped.length > 0 && (
        <fieldset className={`form-section${hasParent ? ' has-parent' : ''}`}>
          <legend>{hasParent ? `Template and parameters (inherited unless overridden)` : 'Template and parameters'}</legend>
          {hasParent && templateError && (
            <p className="notice error" role="alert">
              The template could not be read: {templateError}
            </p>
          )}
          {grouped.map(renderField)}
        </fieldset>
      )}
      {'comment' in resource.fields && (
        <div className="field field-comment">
          <label htmlFor={`comment-${resource.name}`}>Comment for the history (optional)</label>
          <textarea id={`comment-${resource.name}`} value={comment} rows={2} onChange={(e) => setComment(e.target.value)} aria-invalid={messagesOf(errors.comment).length > 0} />
          {messagesOf(errors.comment).length > 0 && <span className="field-error">{messagesOf(errors.comment).join(' ')}</span>}
        </div>
      )}
      {notice && (
        <p className="notice info" role="status">
          {notice}
        </p>
      )}
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Saving…' : submitLabel}
        </button>
        {dirty && (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              setValues(initialValues(resource, object, initialRef.current));
              setErrors({});
              setFailure([]);
            }}
          >
            Discard changes
          </button>
        )}
        {onCancel && (
          <button type="button" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
        )}
      </div>
    </form>
  );
}
