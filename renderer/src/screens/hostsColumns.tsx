/**
 * The survey list's columns (shared/app/hostSurvey.ts's HOST_COLUMNS) as VirtualTable columns,
 * and the picker of the columns shown, remembered per workspace (localStorage, keyed by the
 * workspace's name). The address and the times are never cut: the address column is as wide as
 * the longest address read so far, a time column as wide as a time; the other columns are cut
 * with an ellipsis, their value whole in the cell's title and in the host's detail.
 */
import { useEffect, useState } from 'react';
import { columnValues, HOST_COLUMNS, hostColumn, type HostColumnId, type HostRow } from '../../../shared/app/hostSurvey';
import type { JsonObject } from '../../../shared/resources';
import { DateTime, dateTitle } from '../components/DateTime';
import type { Column } from '../components/VirtualTable';
import { useStatus } from '../stores/status';
import { addressWidth, columnsKey, storedColumns, toggledColumn } from './hostsSurveyModel';

const asRow = (row: JsonObject) => row as unknown as HostRow;

const SOURCE_WORDS: Readonly<Record<string, string>> = { local: 'local import', central: 'central server', both: 'local and central' };

/** Grid tracks and priorities (3 left out first when narrow; none: always shown). */
const LAYOUT: Readonly<Record<HostColumnId, { width: string; priority?: number }>> = {
  ip: { width: '9rem' },
  roles: { width: 'minmax(7rem, 1fr)', priority: 2 },
  users: { width: 'minmax(7rem, 1fr)', priority: 2 },
  hostnames: { width: 'minmax(9rem, 1.5fr)', priority: 1 },
  services: { width: 'minmax(8rem, 1.2fr)', priority: 2 },
  tls_subjects: { width: 'minmax(11rem, 2fr)', priority: 1 },
  ja3: { width: 'minmax(9rem, 1fr)', priority: 3 },
  ja4: { width: 'minmax(10rem, 1fr)', priority: 3 },
  user_agents: { width: 'minmax(10rem, 1.5fr)', priority: 3 },
  ssh_clients: { width: 'minmax(8rem, 1fr)', priority: 3 },
  networks: { width: 'minmax(7rem, 1fr)', priority: 3 },
  first_seen: { width: '13.25rem', priority: 1 },
  last_seen: { width: '13.25rem' },
  hits: { width: '3.75rem', priority: 2 },
  source: { width: '7.5rem', priority: 3 },
  learned: { width: '13.25rem', priority: 1 },
};

const SORTS: Partial<Record<HostColumnId, string>> = { ip: 'ip', hits: 'hits', first_seen: 'first_seen', last_seen: 'last_seen', learned: 'learned' };

/** The VirtualTable columns of `ids`; `longestAddress`: characters of the longest address read. */
export function surveyColumns(ids: readonly HostColumnId[], longestAddress: number): Column[] {
  return ids.flatMap((id): Column[] => {
    const column = hostColumn(id);
    if (!column) return [];
    const layout = LAYOUT[id];
    const base = {
      key: id,
      title: column.label,
      width: id === 'ip' ? addressWidth(longestAddress) : layout.width,
      ...(layout.priority === undefined ? {} : { priority: layout.priority }),
      ...(SORTS[id] === undefined ? {} : { sort: SORTS[id] }),
    };
    if (column.kind === 'time') {
      const value = (row: JsonObject) => columnValues(asRow(row), id)[0] ?? '';
      return [{ ...base, render: (row) => <DateTime value={value(row)} />, text: (row) => dateTitle(value(row)) }];
    }
    if (id === 'source') return [{ ...base, render: (row) => SOURCE_WORDS[asRow(row).source] ?? asRow(row).source }];
    return [{ ...base, render: (row) => columnValues(asRow(row), id).join(', ') }];
  });
}

/** The columns shown, read from and written to the workspace's storage. */
export function useSurveyColumns(): [HostColumnId[], (next: HostColumnId[]) => void] {
  const workspace = useStatus((s) => s.app?.workspace);
  const [columns, setColumns] = useState<HostColumnId[]>(() => storedColumns(workspace === undefined ? null : localStorage.getItem(columnsKey(workspace))));
  useEffect(() => {
    if (workspace !== undefined) setColumns(storedColumns(localStorage.getItem(columnsKey(workspace))));
  }, [workspace]);
  const save = (next: HostColumnId[]) => {
    setColumns(next);
    if (workspace !== undefined) localStorage.setItem(columnsKey(workspace), next.join(','));
  };
  return [columns, save];
}

/** The picker: one checkbox per column, the address always on; Esc or the button closes it. */
export function ColumnPicker({ columns, onChange }: { columns: readonly HostColumnId[]; onChange: (next: HostColumnId[]) => void }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="column-picker" onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
      <button type="button" aria-expanded={open} aria-controls="host-columns" onClick={() => setOpen((v) => !v)}>
        Columns ({columns.length})
      </button>
      {open && (
        <fieldset id="host-columns">
          <legend>Columns shown</legend>
          {HOST_COLUMNS.map((column) => (
            <label key={column.id}>
              <input type="checkbox" checked={columns.includes(column.id)} disabled={column.id === 'ip'} onChange={() => onChange(toggledColumn(columns, column.id))} />
              {column.label}
            </label>
          ))}
        </fieldset>
      )}
    </div>
  );
}
