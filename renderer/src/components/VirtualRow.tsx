/**
 * One row of VirtualTable. It is memoised: scrolling, a page of rows arriving or the keyboard
 * moving re-renders only the rows whose own props changed, not every row in view. A cell holds
 * at most 256 characters of its value, and so does its title (components/bounded.ts): the row's
 * detail shows it whole on request.
 */
import { memo, useLayoutEffect, useRef, type ReactNode } from 'react';
import type { JsonObject } from '../../../shared/resources';
import { boundedText } from './bounded';

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

export const ROW_HEIGHT = 34;

function cellText(value: JsonObject[string] | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** What a cell shows: text bounded, anything else as its column renders it. */
function cellContent(column: Column, row: JsonObject): ReactNode {
  const shown = column.render ? column.render(row) : cellText(row[column.key]);
  return typeof shown === 'string' ? boundedText(shown) : shown;
}

/** A cell's full value as text ('' when only the rendered cell knows it). */
export function fullText(column: Column, row: JsonObject): string {
  if (column.text) return column.text(row);
  if (column.render) {
    const shown = column.render(row);
    return typeof shown === 'string' || typeof shown === 'number' ? String(shown) : '';
  }
  return cellText(row[column.key]);
}

interface RowProps {
  readonly id: string;
  readonly index: number;
  /** Offset of the row in the list, in pixels. */
  readonly start: number;
  /** Undefined while its page is being fetched. */
  readonly row: JsonObject | undefined;
  readonly columns: readonly Column[];
  /** The grid's `grid-template-columns`. */
  readonly template: string;
  readonly active: boolean;
  readonly selected: boolean;
  /** Must keep its identity across renders, or every row re-renders. */
  readonly onRowClick: (index: number) => void;
}

function VirtualRowView({ id, index, start, row, columns, template, active, selected, onRowClick }: RowProps) {
  const element = useRef<HTMLDivElement>(null);
  // A cell rendered as more than text with no `text` of its column takes its shown text as its
  // tooltip: read once its row's data is in (textContent only: no layout is read).
  useLayoutEffect(() => {
    element.current?.querySelectorAll<HTMLElement>('[data-title-from-text]').forEach((cell) => {
      const text = cell.textContent ?? '';
      if (cell.title !== text) cell.title = text;
    });
  }, [row, columns]);
  return (
    <div
      ref={element}
      id={id}
      role="row"
      aria-rowindex={index + 1}
      aria-selected={selected}
      className={`vtable-row${active ? ' active' : ''}${selected ? ' selected' : ''}`}
      style={{ transform: `translateY(${start}px)`, height: ROW_HEIGHT, gridTemplateColumns: template }}
      onClick={() => onRowClick(index)}
    >
      {columns.map((c) => {
        const text = row ? boundedText(fullText(c, row)) : '';
        return (
          <div key={c.key} role="gridcell" className="vtable-td" title={text || undefined} data-title-from-text={row && !text ? '' : undefined}>
            {row ? cellContent(c, row) : <span className="placeholder">…</span>}
          </div>
        );
      })}
    </div>
  );
}

export const VirtualRow = memo(VirtualRowView);
