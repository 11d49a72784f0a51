/**
 * A list of up to hundreds of thousands of rows: only the rows in view are in the DOM
 * (virtualised), their pages are fetched from the server as they come into view, and the list
 * is a keyboard-navigable grid (arrows, Page Up/Down, Home/End, Enter opens). Columns that do
 * not fit the width are left out by priority (and named under the list); a cut cell shows its
 * full value on hover (its title) and, for the keyboard's row, under the row while the list has
 * focus. A column with an ordering field sorts the list when its header is clicked.
 */
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { useStore, type StoreApi } from 'zustand';
import type { JsonObject } from '../../../shared/resources';
import { failureText, type PagedListState } from '../stores/pagedList';
import { boundedText } from './bounded';
import { fitColumns } from './columnsFit';
import { countText } from './countText';
import { nextOrdering, sortStateOf } from './listModel';
import { useRowWindow } from './useRowWindow';
import { fullText, ROW_HEIGHT, VirtualRow, type Column } from './VirtualRow';

export { ROW_HEIGHT, type Column };

/** How the list is sorted and how to sort it (the API's `ordering` parameter). */
export interface Sorting {
  readonly ordering: string | undefined;
  readonly defaultOrdering: readonly string[];
  readonly onSort: (ordering: string) => void;
}

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
  /** Filters whose errors the screen shows beside their controls: the table does not repeat them. */
  readonly fieldsShown?: readonly string[];
}

/**
 * Rows rendered beyond those in view on each side. Few: a fast scroll jumps past them anyway,
 * and every one of them is built, laid out and painted on each frame of such a scroll.
 */
const OVERSCAN_ROWS = 4;
/** Rows fetched around those rendered, so that a page is in before its rows come into view. */
const FETCH_BEFORE_ROWS = 20;
const FETCH_AFTER_ROWS = 40;

let rootFont: number | undefined;

/** The root font size in pixels, read once (reading styles on every render would force a style recalc). */
function rootFontPx(): number {
  rootFont ??= parseFloat(getComputedStyle(document.documentElement).fontSize) || 16;
  return rootFont;
}

/**
 * How many row slots the list keeps: at least as many as rows rendered at once, never fewer
 * (so that `index % slots` tells apart every row rendered, and a slot keeps its elements).
 */
function useRowSlots(rendered: number): number {
  const [slots, setSlots] = useState(Math.max(1, rendered));
  if (rendered > slots) setSlots(rendered);
  return Math.max(slots, rendered);
}

/**
 * The columns that fit the width, as the same arrays while the same columns fit (a new array
 * would re-render every memoised row at each pixel of a resize).
 */
function useFittedColumns(columns: readonly Column[], width: number, remPx: number): { shown: readonly Column[]; hidden: readonly Column[] } {
  const fitted = useMemo(() => fitColumns(columns, width, remPx), [columns, width, remPx]);
  const shownKeys = fitted.shown.map((c) => c.key).join(' ');
  // Deliberately keyed by the columns shown, not by `fitted`: the first fit of these columns is kept.
  return useMemo(() => fitted, [columns, shownKeys]);
}

/**
 * The width of the list, followed as the window or the panes change. Read by a ResizeObserver,
 * after the browser's layout and before its paint (rendered at once, so that no frame shows the
 * columns of another width): reading it as the list mounts would force a layout of the whole
 * page before the screen's first requests go out.
 */
function useWidth(element: RefObject<HTMLElement | null>): number {
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const target = element.current;
    if (!target) return;
    const observer = new ResizeObserver(() => {
      const next = target.clientWidth;
      flushSync(() => setWidth(next));
    });
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

export function VirtualTable({ label, list, columns: allColumns, onOpen, emptyText, selectedKey, rowKey, sorting, fieldsShown }: Props) {
  const count = useStore(list, (s) => s.count);
  const rows = useStore(list, (s) => s.rows);
  const loading = useStore(list, (s) => s.loading);
  const error = useStore(list, (s) => (s.failure && fieldsShown ? failureText(s.failure, fieldsShown) : s.error));
  const generation = useStore(list, (s) => s.generation);
  const scroller = useRef<HTMLDivElement>(null);
  const frame = useRef<HTMLDivElement>(null);
  const [active, setActive] = useState(0);
  const [focused, setFocused] = useState(false);
  const [clipped, setClipped] = useState<readonly { title: string; text: string }[]>([]);
  const width = useWidth(frame);
  const remPx = rootFontPx();
  const { shown: columns, hidden } = useFittedColumns(allColumns, width, remPx);

  const view = useRowWindow(scroller, count ?? 0, ROW_HEIGHT, OVERSCAN_ROWS);
  const { scrollToIndex, scrollToTop } = view;
  // The count may have shrunk since the range was measured (it is measured again before paint).
  const first = view.first;
  const last = Math.min(view.last, (count ?? 0) - 1);
  const indexes = useMemo(() => Array.from({ length: Math.max(0, last - first + 1) }, (_, i) => first + i), [first, last]);
  const slots = useRowSlots(indexes.length);

  useEffect(() => {
    list.getState().ensureRange(Math.max(0, first - FETCH_BEFORE_ROWS), last + FETCH_AFTER_ROWS);
  }, [list, first, last, count, generation]);

  useEffect(() => {
    setActive(0);
    scrollToTop();
  }, [generation, scrollToTop]);

  const template = columns.map((c) => c.width).join(' ');
  const move = (index: number) => {
    if (!count) return;
    const next = Math.max(0, Math.min(count - 1, index));
    setActive(next);
    scrollToIndex(next);
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

  const idPrefix = label.replace(/\W+/g, '-');
  const activeId = `${idPrefix}-row-${active}`;
  const peekId = `${idPrefix}-peek`;
  const activeRow = rows.get(active);
  const activeStart = active >= first && active <= last ? active * ROW_HEIGHT : undefined;
  // The rows' click handler keeps its identity (the rows are memoised) and reads the latest rows.
  const latest = useRef({ rows, onOpen });
  useLayoutEffect(() => {
    latest.current = { rows, onOpen };
  }, [rows, onOpen]);
  const onRowClick = useCallback((index: number) => {
    setActive(index);
    const row = latest.current.rows.get(index);
    if (row) latest.current.onOpen(row);
  }, []);
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
        cut.push({ title: column.title, text: boundedText(fullText(column, activeRow) || (cell.textContent ?? '')) });
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
          {boundedText(error)}
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
        <div style={{ height: (count ?? 0) * ROW_HEIGHT, position: 'relative' }}>
          {indexes.map((index) => {
            const row = rows.get(index);
            const key = row ? rowKey(row) : undefined;
            return (
              <VirtualRow
                // Keyed by slot, not by index: a row scrolled out lends its elements to the row
                // scrolled in, so a fast scroll updates text instead of building rows anew.
                key={index % slots}
                id={`${idPrefix}-row-${index}`}
                index={index}
                start={index * ROW_HEIGHT}
                row={row}
                columns={columns}
                template={template}
                active={index === active}
                selected={key !== undefined && key === selectedKey}
                onRowClick={onRowClick}
              />
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
        {count === undefined ? '' : `${countText(count)} ${count === 1 ? 'row' : 'rows'}`}
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
