/**
 * A list of up to hundreds of thousands of rows: only the rows in view are in the DOM
 * (virtualised), their pages are fetched from the server as they come into view, and the list
 * is a keyboard-navigable grid (arrows, Page Up/Down, Home/End, Enter opens). Columns that do
 * not fit the width are left out by priority (and named under the list); a cut cell shows its
 * full value on hover (its title) and, for the keyboard's row, under the row while the list has
 * focus. A column with an ordering field sorts the list when its header is clicked.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react';
import { useStore, type StoreApi } from 'zustand';
import type { JsonObject } from '../../../shared/resources';
import type { PagedListState } from '../stores/pagedList';
import { fitColumns } from './columnsFit';
import { nextOrdering, sortStateOf } from './listModel';

export interface Column {
  readonly key: string;
  readonly title: string;
  /** CSS grid track, e.g. `2fr` or `8rem`. */
  readonly width: string;
  readonly render?: (row: JsonObject) => ReactNode;
  /** The cell's full value as text (its tooltip), when `render` gives more than text. */
  readonly text?: (row: JsonObject) => string;
  /** Left out first when the list is narrow: 3 before 2 before 1; none: always shown. */
  readonly priority?: number;
  /** The API's ordering field a click on the header sorts by. */
  readonly sort?: string;
}

/** How the list is sorted and how to sort it (the API's `ordering` parameter). */
export interface Sorting {
  readonly ordering: string | undefined;
  readonly defaultOrdering: readonly string[];
  readonly onSort: (ordering: string) => void;
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
  readonly sorting?: Sorting;
}

function cellText(value: JsonObject[string] | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A cell's full value as text. */
function fullText(column: Column, row: JsonObject): string {
  if (column.text) return column.text(row);
  if (column.render) {
    const shown = column.render(row);
    return typeof shown === 'string' || typeof shown === 'number' ? String(shown) : '';
  }
  return cellText(row[column.key]);
}

let rootFont: number | undefined;

/** The root font size in pixels, read once (reading styles on every render would force a style recalc). */
function rootFontPx(): number {
  rootFont ??= parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return rootFont;
}

/** The width of the list, followed as the window or the panes change. */
function useWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    setWidth(target.clientWidth);
    const observer = new ResizeObserver(() => setWidth(target.clientWidth));
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

function SortHeader({ column, sorting }: { column: Column; sorting: Sorting | undefined }) {
  if (!column.sort || !sorting) return <>{column.title}</>;
  const state = sortStateOf(column.sort, sorting.ordering, sorting.defaultOrdering);
  const next = nextOrdering(column.sort, sorting.ordering, sorting.defaultOrdering);
  const then = next.startsWith('-') ? 'descending' : 'ascending';
  return (
    <button
      type="button"
      className="sort-button"
      title={`Sort by ${column.title}, ${then}`}
      aria-label={`${column.title}${state ? `, sorted ${state}` : ''}: sort ${then}`}
      onClick={() => sorting.onSort(next)}
    >
      {column.title}
      <span className="sort-mark" aria-hidden="true">
        {state === 'ascending' ? ' ▲' : state === 'descending' ? ' ▼' : ''}
      </span>
    </button>
  );
}

export function VirtualTable({ label, list, columns: allColumns, onOpen, emptyText, selectedKey, rowKey, sorting }: Props) {
  const count = useStore(list, (s) => s.count);
  const rows = useStore(list, (s) => s.rows);
  const loading = useStore(list, (s) => s.loading);
  const error = useStore(list, (s) => s.error);
  const generation = useStore(list, (s) => s.generation);
  const scroller = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const [focused, setFocused] = useState(false);
  const [clipped, setClipped] = useState<readonly { title: string; text: string }[]>([]);
  const width = useWidth(frame);
  const remPx = rootFontPx();
  const { shown: columns, hidden } = useMemo(() => fitColumns(allColumns, width, remPx), [allColumns, width, remPx]);

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
  const peekId = `${label.replace(/\W+/g, '-')}-peek`;
  const activeRow = rows.get(active);
  const activeStart = items.find((item) => item.index === active)?.start;
  // Cells rendered as more than text take their text as tooltip (no layout read: textContent only).
  useLayoutEffect(() => {
    scroller.current?.querySelectorAll<HTMLElement>('[data-title-from-text]').forEach((cell) => {
      const text = cell.textContent ?? '';
      if (cell.title !== text) cell.title = text;
    });
  });
  // The keyboard's row: which of its cells are cut, to show them whole under it (measured only
  // when that row, its data or the focus change: never while merely scrolling).
  useLayoutEffect(() => {
    if (!focused) return setClipped((before) => (before.length === 0 ? before : []));
    const cells = scroller.current?.querySelectorAll<HTMLElement>(`#${CSS.escape(activeId)} [role='gridcell']`) ?? [];
    const cut: { title: string; text: string }[] = [];
    cells.forEach((cell, i) => {
      const column = columns[i];
      // A cell is cut when it overflows, or when a part of what it renders does (a name beside a marker).
      const overflows = (element: Element) => element.scrollWidth > element.clientWidth + 1;
      if (column && activeRow && (overflows(cell) || [...cell.querySelectorAll('*')].some(overflows))) {
        cut.push({ title: column.title, text: fullText(column, activeRow) || (cell.textContent ?? '') });
      }
    });
    setClipped((before) => (JSON.stringify(before) === JSON.stringify(cut) ? before : cut));
  }, [focused, active, activeRow, activeId, columns]);
  return (
    <div className="vtable" ref={frame}>
      <div className="vtable-head" role="presentation" style={{ gridTemplateColumns: template }}>
        {columns.map((c) => {
          const state = c.sort && sorting ? sortStateOf(c.sort, sorting.ordering, sorting.defaultOrdering) : undefined;
          return (
            <div key={c.key} className="vtable-th" title={c.sort && sorting ? undefined : c.title} data-sort={state}>
              <SortHeader column={c} sorting={sorting} />
            </div>
          );
        })}
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
        aria-describedby={focused && clipped.length > 0 ? peekId : undefined}
        tabIndex={0}
        onKeyDown={onKeyDown}
        onFocus={() => setFocused(true)}
        onBlur={() => setFocused(false)}
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
                {columns.map((c) => {
                  const text = row ? fullText(c, row) : '';
                  return (
                    <div key={c.key} role="gridcell" className="vtable-td" title={text || undefined} data-title-from-text={row && !text ? '' : undefined}>
                      {row ? (c.render ? c.render(row) : cellText(row[c.key])) : <span className="placeholder">…</span>}
                    </div>
                  );
                })}
              </div>
            );
          })}
          {focused && clipped.length > 0 && activeStart !== undefined && (
            <div id={peekId} className="vtable-peek" role="tooltip" style={{ transform: `translateY(${activeStart + ROW_HEIGHT}px)` }}>
              {clipped.map((cell) => (
                <div key={cell.title}>
                  <span className="muted">{cell.title}:</span> {cell.text}
                </div>
              ))}
            </div>
          )}
        </div>
      </div>
      <div className="vtable-foot" role="status" aria-live="polite">
        {count === undefined ? '' : `${count.toLocaleString()} ${count === 1 ? 'row' : 'rows'}`}
        {loading && count !== undefined ? ' · loading…' : ''}
        {hidden.length > 0 && (
          <span className="hidden-columns" title="Widen the window to see them; a row's detail shows every field.">
            {' '}
            · not shown at this width: {hidden.map((c) => c.title).join(', ')}
          </span>
        )}
      </div>
    </div>
  );
}
