/**
 * Interfaces and protocols as an editable table: a name and a flag per row (api.md §3.1).
 * Rows keep their pk when the name stays; errors of the API appear on their row.
 */
import type { JsonValue } from '../../../shared/resources';

export interface ItemRow {
  readonly pk?: number;
  readonly name: string;
  readonly flag: boolean;
}

interface Props {
  readonly id: string;
  readonly label: string;
  readonly flagLabel: string;
  readonly rows: readonly ItemRow[];
  readonly disabled: boolean;
  readonly onChange: (rows: ItemRow[]) => void;
  /** The API's errors for this field: a list with one entry per item, or a dict. */
  readonly errors?: JsonValue | undefined;
}

function messagesOf(value: JsonValue | undefined): string[] {
  if (value === undefined || value === null) return [];
  if (Array.isArray(value)) return value.flatMap((v) => (typeof v === 'string' ? [v] : []));
  if (typeof value === 'object') return Object.values(value).flatMap(messagesOf);
  return [String(value)];
}

export function ItemsTable({ id, label, flagLabel, rows, disabled, onChange, errors }: Props) {
  const itemErrors = Array.isArray(errors) ? errors : [];
  const tableErrors = !Array.isArray(errors) ? messagesOf(errors) : [];
  const update = (index: number, change: Partial<ItemRow>) => onChange(rows.map((row, i) => (i === index ? { ...row, ...change } : row)));
  return (
    <fieldset className="items" id={id} disabled={disabled}>
      <legend>{label}</legend>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">{flagLabel}</th>
            <th scope="col">
              <span className="visually-hidden">Remove</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row, index) => {
            const rowErrors = messagesOf(itemErrors[index] ?? null);
            return (
              <tr key={row.pk ?? `new-${index}`}>
                <td>
                  <input
                    aria-label={`${label} ${index + 1} name`}
                    value={row.name}
                    maxLength={32}
                    onChange={(e) => update(index, { name: e.target.value })}
                    aria-invalid={rowErrors.length > 0}
                  />
                  {rowErrors.length > 0 && <span className="field-error">{rowErrors.join(' ')}</span>}
                </td>
                <td>
                  <input
                    type="checkbox"
                    aria-label={`${label} ${index + 1} ${flagLabel.toLowerCase()}`}
                    checked={row.flag}
                    onChange={(e) => update(index, { flag: e.target.checked })}
                  />
                </td>
                <td>
                  <button type="button" className="link" onClick={() => onChange(rows.filter((_, i) => i !== index))} aria-label={`Remove ${row.name || `row ${index + 1}`} from ${label}`}>
                    Remove
                  </button>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
      {rows.length === 0 && <p className="empty">None.</p>}
      <button type="button" onClick={() => onChange([...rows, { name: '', flag: true }])}>
        Add {label === 'Interfaces' ? 'interface' : label === 'Protocols' ? 'protocol' : 'row'}
      </button>
      {tableErrors.length > 0 && (
        <p className="field-error" role="alert">
          {tableErrors.join(' ')}
        </p>
      )}
    </fieldset>
  );
}
