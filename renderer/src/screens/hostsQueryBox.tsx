/**
 * The query box (`host_id_qfilter`, api.md §7): completes field names (`hostFields`) and, after
 * `field:`, the values the workspace holds there (`hostValues`); lists the fields with an example
 * each (a click on an example applies it); says "no such field" for an unknown field before the
 * query is sent. The server's own error (a query that does not parse) shows under the box.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import type { QueryField } from '../../../shared/app/hostSurvey';
import { appCall } from '../api/client';
import { boundedText } from '../components/bounded';
import { countText } from '../components/countText';
import { useQuery } from '../data/useQuery';
import { applyCompletion, cursorContext, unknownFields, type CursorContext } from '../../../shared/app/queryAssist';
import { fieldSuggestions } from './hostsSurveyModel';

interface Props {
  readonly applied: string;
  /** The server's error about the applied query. */
  readonly error: string | undefined;
  readonly onApply: (query: string | undefined) => void;
}

interface Suggestion {
  /** A field name, or a value as the workspace holds it (quoted when put in the query). */
  readonly text: string;
  readonly hint: string;
}

const NO_FIELDS: readonly QueryField[] = [];

/**
 * The fields the workspace's query knows, read once the box is used (focused, or its fields
 * listed): not on the way to the list's first rows. None while unknown: nothing is then checked.
 */
function useFields(wanted: boolean): readonly QueryField[] {
  const { data } = useQuery(wanted ? 'hostFields' : undefined, (signal) => appCall('hostFields', { signal }));
  return data?.fields ?? NO_FIELDS;
}

/** The word under the caret, settled for a moment (values are asked for after a pause in typing). */
function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

function useSuggestions(word: CursorContext | undefined, fields: readonly QueryField[]): Suggestion[] {
  const valueKey = word?.kind === 'value' ? JSON.stringify([word.field, word.prefix]) : undefined;
  const settledKey = useSettled(valueKey, 120);
  const values = useQuery(settledKey, (signal) => {
    const [field, prefix] = JSON.parse(settledKey!) as [string, string];
    return appCall('hostValues', { query: { field, prefix }, signal });
  });
  return useMemo(() => {
    if (!word) return [];
    if (word.kind === 'field') return word.prefix.length === 0 ? [] : fieldSuggestions(word.prefix, fields).map((f) => ({ text: f.field, hint: f.example }));
    if (settledKey !== valueKey) return [];
    return (values.data?.values ?? []).slice(0, 12).map((v) => ({ text: v.value, hint: `${countText(v.count)} hosts` }));
  }, [word, fields, values.data, settledKey, valueKey]);
}

function FieldsHelp({ fields, onUse }: { fields: readonly QueryField[]; onUse: (example: string) => void }) {
  if (fields.length === 0) return <p className="muted">The fields are being read…</p>;
  return (
    <table className="data query-fields" aria-label="Query fields">
      <thead>
        <tr>
          <th scope="col">Field</th>
          <th scope="col">Kind</th>
          <th scope="col">Example (click to apply)</th>
        </tr>
      </thead>
      <tbody>
        {fields.map((f) => (
          <tr key={f.field}>
            <td>
              <code>{f.field}</code>
            </td>
            <td>{f.kind}</td>
            <td>
              <button type="button" className="link example" onClick={() => onUse(f.example)}>
                <code>{boundedText(f.example, 120)}</code>
              </button>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

export function QueryBox({ applied, error, onApply }: Props) {
  const [draft, setDraft] = useState(applied);
  const [caret, setCaret] = useState(applied.length);
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const [help, setHelp] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => setDraft(applied), [applied]);
  const [used, setUsed] = useState(applied !== '');
  const fields = useFields(used || help);
  const word = useMemo(() => (open ? cursorContext(draft, caret) : undefined), [open, draft, caret]);
  const suggestions = useSuggestions(word, fields);
  const known = useMemo(() => fields.map((f) => f.field), [fields]);
  const unknown = known.length > 0 ? unknownFields(draft, known) : [];
  const unknownText = unknown.length > 0 ? `${unknown.map((u) => boundedText(u.message.replace(/^no such field/, 'No such field'), 160)).join('; ')}. Fields… lists those this workspace has.` : undefined;
  const shownError = unknownText ?? (draft === applied ? error : undefined);
  const listOpen = open && suggestions.length > 0;

  useEffect(() => setActive(0), [suggestions]);
  // A picked completion puts the caret after it once the input holds the new text: in the same
  // commit, before the next key is handled (a frame later, keys typed meanwhile went before it).
  const caretAfterPick = useRef<number | undefined>(undefined);
  useLayoutEffect(() => {
    const at = caretAfterPick.current;
    if (at === undefined || !input.current) return;
    caretAfterPick.current = undefined;
    input.current.setSelectionRange(at, at);
  });

  const pick = (suggestion: Suggestion) => {
    if (!word) return;
    const next = applyCompletion(draft, word, suggestion.text);
    setDraft(next.query);
    setCaret(next.cursor);
    if (next.query === draft) input.current?.setSelectionRange(next.cursor, next.cursor);
    else caretAfterPick.current = next.cursor;
    input.current?.focus();
  };
  const apply = (query: string) => {
    setOpen(false);
    if (known.length > 0 && unknownFields(query, known).length > 0) return;
    onApply(query.trim() === '' ? undefined : query.trim());
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (!listOpen) return;
    const keys: Record<string, () => void> = {
      ArrowDown: () => setActive((a) => (a + 1) % suggestions.length),
      ArrowUp: () => setActive((a) => (a - 1 + suggestions.length) % suggestions.length),
      Tab: () => pick(suggestions[active]!),
      Escape: () => setOpen(false),
    };
    if (event.key === 'Enter' && word?.kind === 'field') keys.Enter = () => pick(suggestions[active]!);
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };
  const track = () => setCaret(input.current?.selectionStart ?? draft.length);

  return (
    <div className="host-filters">
      <form
        className="qfilter"
        onSubmit={(event) => {
          event.preventDefault();
          apply(draft);
        }}
      >
        <label htmlFor="hosts-qfilter">Query</label>
        <div className="qfilter-row">
          <div className="combo">
            <input
              ref={input}
              id="hosts-qfilter"
              role="combobox"
              aria-autocomplete="list"
              aria-expanded={listOpen}
              aria-controls="hosts-qfilter-options"
              aria-activedescendant={listOpen ? `hosts-qfilter-option-${active}` : undefined}
              value={draft}
              spellCheck={false}
              autoComplete="off"
              placeholder="roles.name:dc* AND services.port:443"
              aria-invalid={shownError ? true : undefined}
              aria-describedby={shownError ? 'hosts-qfilter-error' : 'hosts-qfilter-help'}
              onChange={(e) => {
                setDraft(e.target.value);
                setCaret(e.target.selectionStart ?? e.target.value.length);
                setOpen(true);
              }}
              onFocus={() => setUsed(true)}
              onKeyDown={onKeyDown}
              onKeyUp={track}
              onClick={track}
              onBlur={() => window.setTimeout(() => setOpen(false), 150)}
            />
            {listOpen && (
              <ul id="hosts-qfilter-options" role="listbox" aria-label="Completions" className="completions">
                {suggestions.map((s, i) => (
                  <li
                    key={s.text}
                    id={`hosts-qfilter-option-${i}`}
                    role="option"
                    aria-selected={i === active}
                    onMouseDown={(e) => {
                      e.preventDefault();
                      pick(s);
                    }}
                  >
                    <code>{boundedText(s.text, 120)}</code> <span className="muted">{boundedText(s.hint, 80)}</span>
                  </li>
                ))}
              </ul>
            )}
          </div>
          <button type="submit">Apply query</button>
          {applied && (
            <button type="button" onClick={() => onApply(undefined)}>
              Clear query
            </button>
          )}
          <button type="button" aria-expanded={help} aria-controls="hosts-qfilter-fields" onClick={() => setHelp((h) => !h)}>
            Fields…
          </button>
        </div>
        {shownError ? (
          <p id="hosts-qfilter-error" className="field-error">
            {shownError}
          </p>
        ) : (
          <p id="hosts-qfilter-help" className="muted hint">
            <code>field:value</code>, <code>*</code> wildcards, <code>AND</code>/<code>OR</code>/<code>NOT</code>, parentheses, <code>&gt;</code> on numbers and dates; Tab completes.
          </p>
        )}
      </form>
      <div id="hosts-qfilter-fields" className="query-help" hidden={!help}>
        {help && (
          <FieldsHelp
            fields={fields}
            onUse={(example) => {
              setDraft(example);
              apply(example);
            }}
          />
        )}
      </div>
    </div>
  );
}
