/**
 * Interfaces and protocols as an editable table: a name and a flag per row (api.md §3.1).
 * Rows keep their pk when the name stays; errors of the API appear on their row, errors of the
 * whole list under the table. Enter in a name goes to the next row (adding one at the end)
 * rather than submitting the form.
 */
import { useEffect, useRef, useState, type ReactNode } from 'react';
import type { JsonValue } from '../../../shared/resources';
import { splitItemErrors, type ItemRow } from './resourceFormModel';

export type { ItemRow };

interface Props {
  readonly id: string;
  /** The list's label, plural: `Interfaces`. */
  readonly label: string;
  readonly flagLabel: string;
  readonly rows: readonly ItemRow[];
  readonly disabled: boolean;
  /** Shown but not editable (e.g. inherited): no Remove or Add buttons. */
  readonly readOnly?: boolean;
  readonly onChange: (rows: ItemRow[]) => void;
  /** The API's errors for this field: a list with one entry per item, or messages for the whole list. */
  readonly errors?: JsonValue | undefined;
  /** One row's noun: `interface` (by default the label without its plural s). */
  readonly itemLabel?: string;
  readonly nameMaxLength?: number;
  /**
   * Controls shown in the legend, next to the label (e.g. inheritance). They stay usable when the
   * table is disabled: a disabled fieldset does not disable its legend's contents.
   */
  readonly legendExtra?: ReactNode;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export function ItemsTable({ id, label, flagLabel, rows, disabled, onChange, errors, itemLabel, nameMaxLength = 32, legendExtra, readOnly = false }: Props) {
  const noun = itemLabel ?? label.replace(/s$/i, '').toLowerCase();
  const { perRow, list } = splitItemErrors(errors);
  const nameInputs = useRef<(HTMLInputElement | null)[]>([]);
  const [focusRow, setFocusRow] = useState<number | undefined>();
  useEffect(() => {
    if (focusRow === undefined) return;
    nameInputs.current[focusRow]?.focus();
    setFocusRow(undefined);
  }, [focusRow, rows.length]);

  const update = (index: number, change: Partial<ItemRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  const add = () => {
    onChange([...rows, { name: '', flag: true }]);
    setFocusRow(rows.length);
  };
  const remove = (index: number) => {
    onChange(rows.filter((_, i) => i !== index));
    // Keep the keyboard in the table: on the row that took its place, or the previous one.
    if (rows.length > 1) setFocusRow(Math.min(index, rows.length - 2));
  };

  return (
    // With controls in the legend, the group is still named by its label alone.
    <fieldset className="items" id={id} disabled={disabled} aria-label={legendExtra ? label : undefined}>
      <legend>
        {label}
        {legendExtra}
      </legend>
      {rows.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">{flagLabel}</th>
              {!readOnly && (
                <th scope="col">
                  <span className="visually-hidden">Remove</span>
                </th>
              )}
            </tr>
          </thead>
          <tbody>
            {rows.map((row, index) => {
              const rowErrors = perRow.get(index) ?? [];
              const errorId = `${id}-${index}-errors`;
              return (
                <tr key={row.pk ?? `new-${index}`} className={rowErrors.length > 0 ? 'invalid' : undefined}>
                  <td>
                    <input
                      ref={(element) => {
                        nameInputs.current[index] = element;
                      }}
                      aria-label={`${capitalized(noun)} ${index + 1} name`}
                      value={row.name}
                      maxLength={nameMaxLength}
                      onChange={(e) => update(index, { name: e.target.value })}
                      onKeyDown={(e) => {
                        if (e.key !== 'Enter') return;
                        e.preventDefault();
                        if (index === rows.length - 1) add();
                        else setFocusRow(index + 1);
                      }}
                      aria-invalid={rowErrors.length > 0}
                      aria-describedby={rowErrors.length > 0 ? errorId : undefined}
                    />
                    {rowErrors.length > 0 && (
                      <span className="field-error" id={errorId}>
                        {rowErrors.join(' ')}
                      </span>
                    )}
                  </td>
                  <td>
                    <input
                      type="checkbox"
                      aria-label={`${capitalized(noun)} ${index + 1} ${flagLabel.toLowerCase()}`}
                      checked={row.flag}
                      onChange={(e) => update(index, { flag: e.target.checked })}
                    />
                  </td>
                  {!readOnly && (
                    <td>
                      <button type="button" className="link" onClick={() => remove(index)} aria-label={`Remove ${noun} ${row.name || index + 1}`}>
                        Remove
                      </button>
                    </td>
                  )}
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {rows.length === 0 && <p className="empty">No {label.toLowerCase()}.</p>}
      {!readOnly && (
        <button type="button" className="items-add" onClick={add}>
          Add {noun}
        </button>
      )}
      {list.length > 0 && (
        <p className="field-error" role="alert">
          {list.join(' ')}
        </p>
      )}
    </fieldset>
  );
}
