/**
 * A list of up to hundreds of thousands of rows: only the rows in view are in the DOM
 * (virtualised), their pages are fetched from the server as they come into view, and the list
 * is a keyboard-navigable grid (arrows, Page Up/Down, Home/End, Enter opens).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, useState, type KeyboardEvent, type ReactNode } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { JsonObject } from '../../../shared/resources';
import type { PagedListState } from '../stores/pagedList';

export interface Column {
  readonly key: string;
  readonly title: string;
  /** CSS grid track, e.g. `2fr` or `8rem`. */
  readonly width: string;
  readonly render?: (row: JsonObject) => ReactNode;
}

export const ROW_HEIGHT = 34;

interface Props {
  readonly label: string;
  readonly list: StoreApi<PagedListState>;
  readonly columns: readonly Column[];
  readonly onOpen: (row: JsonObject) => void;
  readonly emptyText: string;
  /** The row shown as selected (e.g. the one open in the detail pane). */
  readonly selectedKey?: string | undefined;
  readonly rowKey: (row: JsonObject) => string;
}

function cellText(value: JsonObject[string] | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

export function VirtualTable({ label, list, columns, onOpen, emptyText, selectedKey, rowKey }: Props) {
  const count = useStore(list, (s) => s.count);
  const rows = useStore(list, (s) => s.rows);
  const loading = useStore(list, (s) => s.loading);
  const error = useStore(list, (s) => s.error);
  const generation = useStore(list, (s) => s.generation);
  const scroller = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);

  const virtualizer = useVirtualizer({
    count: count ?? 0,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_HEIGHT,
    overscan: 20,
  });
  const items = virtualizer.getVirtualItems();
  const first = items[0]?.index ?? 0;
  const last = items[items.length - 1]?.index ?? 0;

  useEffect(() => {
    list.getState().ensureRange(first, last + 20);
  }, [list, first, last, count, generation]);

  useEffect(() => {
    setActive(0);
    virtualizer.scrollToOffset(0);
  }, [generation, virtualizer]);

  const template = columns.map((c) => c.width).join(' ');
  const move = (index: number) => {
    if (!count) return;
    const next = Math.max(0, Math.min(count - 1, index));
    setActive(next);
    virtualizer.scrollToIndex(next, { align: 'auto' });
  };
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const page = Math.max(1, Math.floor((scroller.current?.clientHeight ?? 300) / ROW_HEIGHT) - 1);
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(active + 1),
      ArrowUp: () => move(active - 1),
      PageDown: () => move(active + page),
      PageUp: () => move(active - page),
      Home: () => move(0),
      End: () => move((count ?? 1) - 1),
      Enter: () => {
        const row = rows.get(active);
        if (row) onOpen(row);
      },
    };
    const action = keys[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  };

  const activeId = `${label.replace(/\W+/g, '-')}-row-${active}`;
  return (
    <div className="vtable">
      <div className="vtable-head" role="presentation" style={{ gridTemplateColumns: template }}>
        {columns.map((c) => (
          <div key={c.key} className="vtable-th">
            {c.title}
          </div>
        ))}
      </div>
      {error && (
        <p className="notice error" role="alert">
          {error}
        </p>
      )}
      {count === 0 && !loading && !error && <p className="empty">{emptyText}</p>}
      {count === undefined && loading && (
        <p className="loading" role="status">
          Loading…
        </p>
      )}
      <div
        ref={scroller}
        className="vtable-body"
        role="grid"
        aria-label={label}
        aria-rowcount={count ?? 0}
        aria-busy={count === undefined || loading}
        data-generation={generation}
        aria-activedescendant={count ? activeId : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
      >
        <div style={{ height: virtualizer.getTotalSize(), position: 'relative' }}>
          {items.map((item) => {
            const row = rows.get(item.index);
            const key = row ? rowKey(row) : undefined;
            const id = `${label.replace(/\W+/g, '-')}-row-${item.index}`;
            return (
              <div
                key={item.key}
                id={id}
                role="row"
                aria-rowindex={item.index + 1}
                aria-selected={key !== undefined && key === selectedKey}
                className={`vtable-row${item.index === active ? ' active' : ''}${key !== undefined && key === selectedKey ? ' selected' : ''}`}
                style={{ transform: `translateY(${item.start}px)`, height: ROW_HEIGHT, gridTemplateColumns: template }}
                onClick={() => {
                  setActive(item.index);
                  if (row) onOpen(row);
                }}
              >
                {columns.map((c) => (
                  <div key={c.key} role="gridcell" className="vtable-td">
                    {row ? (c.render ? c.render(row) : cellText(row[c.key])) : <span className="placeholder">…</span>}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
      <div className="vtable-foot" role="status" aria-live="polite">
        {count === undefined ? '' : `${count.toLocaleString()} ${count === 1 ? 'row' : 'rows'}`}
        {loading && count !== undefined ? ' · loading…' : ''}
      </div>
    </div>
  );
}
