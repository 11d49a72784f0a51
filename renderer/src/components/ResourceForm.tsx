/**
 * The form of any writable resource, built from its declaration (shared/resources): one input
 * per writable field, interfaces and protocols as tables, each API error next to its field, an
 * optional comment for the history, and — for templates and first-family probes — inherited
 * fields shown as such, with controls to override them and to return to the template's value.
 *
 * Only what changed is sent (a PATCH of the changed fields, as the sync engine's outbox keeps
 * them), so a stale form meets the API's own refusals instead of silently undoing a colleague's
 * change; those refusals are shown where they belong.
 *
 * Edits are never lost silently: changed fields are marked, the form reports its changes to the
 * leave guard (stores/unsavedChanges.ts) so that every way out asks first, Ctrl+S / Cmd+S saves,
 * and Save with its feedback sits in a bar that stays in view at the bottom of a long form.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode } from 'react';
import { changesWithNewParent, sourceOfInherited, templateLinkOf, type TemplateLink } from '../../../shared/api/inheritedValues';
import { vendorProbeTemplate, type Field, type JsonObject, type JsonValue, type Resource } from '../../../shared/resources';
import { listPath } from '../../../shared/resources/derived';
import { ApiFailure, api } from '../api/client';
import { useQuery } from '../data/useQuery';
import { leaveThen, useUnsavedChanges } from '../stores/unsavedChanges';
import { boundedText } from './bounded';
import { BoundedText } from './BoundedText';
import { ItemsTable } from './ItemsTable';
import {
  INHERITABLE_NAMES,
  changedFieldNames,
  comparable,
  displayValue,
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
  /**
   * Send the payload (PATCH or POST); an ApiFailure's field errors are shown on the form.
   * 'cancelled': the user chose not to save after all (a preview): the changes stay in the form.
   */
  readonly onSubmit: (payload: JsonObject) => Promise<void | 'cancelled'>;
  readonly submitLabel: string;
  readonly onCancel?: () => void;
  /** Fields not to show (set by the screen). */
  readonly hidden?: readonly string[];
  /** Labels to show instead of the declaration's (which are the API's verbose names). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Said in the action bar once a save went through. */
  readonly savedText?: string;
}

/** Ancestors read above a template at most (a longer chain is shown as far as read). */
const MAX_CHAIN = 32;

/**
 * The template an object inherits from and that template's own ancestors (the chain the
 * inherited badges name their source from), fetched when parent_tmpl names one, and again
 * whenever the object itself is reloaded (the templates may have changed too).
 */
function useTemplateChain(pk: JsonValue | undefined, object: JsonObject | undefined): { template: JsonObject | undefined; chain: readonly TemplateLink[]; error: string | undefined } {
  const key = typeof pk === 'number' ? `${listPath(vendorProbeTemplate)}${pk}/` : undefined;
  // A reload of the same template keeps showing the values read before until the new ones come.
  const { data, error } = useQuery(
    key,
    async (signal) => {
      const first = await api.get(key!, undefined, signal);
      const chain = [templateLinkOf(first)];
      const seen = new Set([chain[0]!.pk]);
      for (let parent = chain[0]!.parent; parent !== null && !seen.has(parent) && chain.length < MAX_CHAIN; ) {
        const next = templateLinkOf(await api.get(`${listPath(vendorProbeTemplate)}${parent}/`, undefined, signal));
        chain.push(next);
        seen.add(next.pk);
        parent = next.parent;
      }
      return { template: first, chain };
    },
    { refreshOn: object },
  );
  return error ? { template: undefined, chain: [], error: error.message } : { template: data?.template, chain: data?.chain ?? [], error: undefined };
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
              {boundedText(choice)}
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
              {boundedText(option.label)}
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
              {boundedText(option.label)}
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

type Notice = { readonly kind: 'ok' | 'info'; readonly text: string };

export function ResourceForm({ resource, object, initial, refOptions = {}, onSubmit, submitLabel, onCancel, hidden = [], labels = {}, savedText = 'Saved.' }: Props) {
  const inheriting = 'overriden_fields' in resource.fields;
  // `initial` is read when the form starts and when another object is shown, not on every render.
  const initialRef = useRef(initial);
  initialRef.current = initial;
  const start = useMemo(() => initialValues(resource, object, initialRef.current), [resource, object]);
  const [values, setValues] = useState<JsonObject>(start);
  const [comment, setComment] = useState('');
  const [errors, setErrors] = useState<Record<string, JsonValue>>({});
  const [failure, setFailure] = useState<readonly string[]>([]);
  const [notice, setNotice] = useState<Notice | undefined>();
  const [busy, setBusy] = useState(false);
  /** Saved, and the saved object not read back yet: what the form shows is no longer unsaved. */
  const [justSaved, setJustSaved] = useState(false);
  /** Selectors tried in turn after the next render: where the keyboard should go. */
  const [focusTarget, setFocusTarget] = useState<readonly string[] | undefined>();
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    setValues(start);
    setJustSaved(false);
    setErrors({});
    setFailure([]);
    // "Saved." stays after the saved object comes back; "Nothing to save" never outlives the values it was about.
    setNotice((current) => (current?.kind === 'ok' ? current : undefined));
  }, [start]);

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
  const { template, chain, error: templateError } = useTemplateChain(hasParent ? parent : undefined, object);
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
  // Any edit makes the last "Saved." or "Nothing to save" stale.
  const edit = (change: (current: JsonObject) => JsonObject) => {
    setNotice(undefined);
    setJustSaved(false);
    setValues(change);
  };
  const set = (name: string, value: JsonValue) => edit((current) => ({ ...current, [name]: value }));
  const setOverride = (name: string, on: boolean) => {
    const field = resource.fields[name];
    edit((current) => {
      const now = overridesIn(current.overriden_fields);
      const next = on ? [...now.filter((f) => f !== name), name] : now.filter((f) => f !== name);
      // Overriding starts from the value shown; giving back shows the template's value again.
      const value = on ? shownValue(name) : template ? (template[name] ?? null) : current[name];
      return { ...current, overriden_fields: next, [name]: value ?? null };
    });
    setFocusTarget(on ? (field?.kind === 'items' ? [`#field-${name} tbody input`, `#field-${name} .items-add`] : [`#field-${name}`]) : [`[data-override="${name}"]`]);
  };
  const discard = () => {
    setValues(start);
    setErrors({});
    setFailure([]);
    setNotice(undefined);
  };

  const fieldRows = Object.entries(resource.fields).filter(([name, field]) => isWritableField(field) && !hidden.includes(name) && field.kind !== 'choiceList');
  const shownNames = fieldRows.map(([name]) => name);
  const changes = formPayload({ resource, values, object, hidden, inherited });
  // An edit compares what is shown (a new template's values too) with the object; a new object, what was typed with where it started.
  const changed = justSaved ? [] : changedFieldNames({ names: shownNames, shown: object ? shownValue : (name) => values[name] ?? null, start, overrides });
  const changedSet = new Set(changed);
  const formTitle = object ? String(object.name ?? `${resource.title} ${String(object.pk)}`) : `the new ${resource.title.toLowerCase()}`;
  useUnsavedChanges(formTitle, changed.map(labelOf));

  const submit = async (event?: FormEvent) => {
    event?.preventDefault();
    if (busy) return;
    setNotice(undefined);
    if (object && Object.keys(changes).length === 0) {
      setFailure([]);
      setErrors({});
      setNotice({ kind: 'info', text: 'Nothing to save: no field was changed.' });
      return;
    }
    setBusy(true);
    setFailure([]);
    try {
      const outcome = await onSubmit({ ...changes, ...(comment.trim() ? { comment: comment.trim() } : {}) });
      if (outcome === 'cancelled') {
        setNotice({ kind: 'info', text: 'Not saved: nothing was changed. Your edits are still in the form.' });
        return;
      }
      setErrors({});
      setComment('');
      setNotice({ kind: 'ok', text: savedText });
      setJustSaved(true);
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

  // Ctrl+S / Cmd+S saves the form shown, wherever the focus is (not under a dialog).
  const submitRef = useRef(submit);
  submitRef.current = submit;
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey || event.key.toLowerCase() !== 's') return;
      if (document.querySelector('dialog[open]')) return;
      event.preventDefault();
      void submitRef.current();
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // Escape leaves a new form (Cancel) or discards an edit, asking first if anything changed.
  const onKeyDown = (event: KeyboardEvent<HTMLFormElement>) => {
    if (event.key !== 'Escape' || event.defaultPrevented || busy || event.target instanceof HTMLSelectElement) return;
    if (onCancel) {
      // Cancel leaves the page: the router's guard asks if anything changed.
      event.preventDefault();
      onCancel();
    } else if (changed.length > 0) {
      event.preventDefault();
      leaveThen(discard);
    }
  };

  const sourceName = (name: string): string => {
    const source = sourceOfInherited(name, chain);
    return boundedText(source ? source.name : template ? String(template.name) : 'the template');
  };

  const inheritanceControls = (name: string): ReactNode => {
    if (!inheritable(name) || !hasParent) return null;
    const label = labelOf(name);
    const templateName = template ? boundedText(String(template.name)) : 'the template';
    if (inherited(name)) {
      const from = sourceName(name);
      return (
        <span className="inheritance">
          <span className="badge" title={`The value of ${from}${from === templateName ? '' : `, through ${templateName}`}`}>
            inherited
          </span>
          <span className="inherit-source" data-source={name}>
            from {from}
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
        Differs from {boundedText(String(template.name))}: {why}
      </span>
    );
  };

  /** A new template chosen for an existing object: the values saving it will change (rule 2). */
  const parentPreview = (): ReactNode => {
    if (!object || ownValuesShown || !hasParent || !template) return null;
    const coming = changesWithNewParent(object, overrides, template);
    return (
      <div className="notice info parent-preview" role="status" aria-label="Values the new template changes">
        {coming.length === 0 ? (
          <p>Saving with {boundedText(String(template.name))} changes no inherited value.</p>
        ) : (
          <>
            <p>
              Saving with {boundedText(String(template.name))} changes {coming.length === 1 ? '1 inherited value' : `${coming.length} inherited values`}:
            </p>
            <ul>
              {coming.map((change) => (
                <li key={change.field}>
                  <strong>{labelOf(change.field)}</strong>: <BoundedText value={displayValue(change.from)} label={`${labelOf(change.field)} before`} /> →{' '}
                  <BoundedText value={displayValue(change.to)} label={`${labelOf(change.field)} after`} />
                </li>
              ))}
            </ul>
          </>
        )}
      </div>
    );
  };

  const fieldClass = (name: string, base: string) => `${base}${inherited(name) ? ' is-inherited' : ''}${changedSet.has(name) ? ' is-changed' : ''}`;

  const renderField = ([name, field]: [string, Field]) => {
    const isInherited = inherited(name);
    const fieldErrors = errors[name];
    const label = labelOf(name);
    const changedMark = changedSet.has(name) ? 'true' : undefined;
    if (field.kind === 'items') {
      return (
        <div key={name} className={fieldClass(name, 'field field-items')} data-changed={changedMark}>
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
        className={fieldClass(name, `field field-${field.kind}${field.required ? ' required' : ''}${inheritable(name) && hasParent ? ' has-controls' : ''}`)}
        data-changed={changedMark}
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
        {name === 'parent_tmpl' && parentPreview()}
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
  const dirty = changed.length > 0;

  return (
    <form ref={form} className="resource-form" onSubmit={(e) => void submit(e)} onKeyDown={onKeyDown} aria-label={`${resource.title} form`} noValidate>
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
      <div className="form-bar" role="group" aria-label="Save">
        {failure.length > 0 && (
          <div className="notice error" role="alert" tabIndex={-1}>
            {failure.map((text) => (
              <p key={text}>{text}</p>
            ))}
          </div>
        )}
        {notice && (
          <p className={`notice ${notice.kind}`} role="status">
            {notice.text}
          </p>
        )}
        <div className="actions">
          <button type="submit" className="primary" disabled={busy} aria-keyshortcuts="Control+S Meta+S" title="Ctrl+S / Cmd+S">
            {busy ? 'Saving…' : submitLabel}
          </button>
          {object && dirty && (
            <button type="button" disabled={busy} onClick={discard}>
              Discard changes
            </button>
          )}
          {onCancel && (
            <button type="button" onClick={onCancel} disabled={busy}>
              Cancel
            </button>
          )}
          {object && (
            <span className="changed-count" aria-live="polite">
              {dirty ? `${changed.length === 1 ? '1 field' : `${changed.length} fields`} changed, not saved` : ''}
            </span>
          )}
        </div>
      </div>
    </form>
  );
}
