/**
 * The rows of a fixed-height list to render: those in view of its scroller and a few more,
 * followed as it scrolls or changes size. A scroll that brings other rows into view renders them
 * at once, in the scroll event (flushSync), so that no frame shows the list without its rows.
 *
 * The scroller's size comes from a ResizeObserver (called after the browser's layout, before its
 * paint), its offset from its scroll events: nothing here reads layout when the list mounts or
 * its count changes, which would force a layout of the whole page before its first paint.
 */
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { NO_ROWS, rowsInView, sameRange, scrollTopShowing, type RowRange } from './rowWindow';

export interface RowWindow extends RowRange {
  /** Scrolls as little as needed for row `index` to be wholly in view. */
  scrollToIndex(index: number): void;
  scrollToTop(): void;
}

interface Viewport {
  readonly top: number;
  readonly height: number;
}

export function useRowWindow(scroller: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan: number): RowWindow {
  const viewport = useRef<Viewport>({ top: 0, height: 0 });
  const [range, setRange] = useState<RowRange>(NO_ROWS);
  const update = useRef<() => void>(() => {});
  useLayoutEffect(() => {
    update.current = () => {
      const { top, height } = viewport.current;
      const next = rowsInView(count, rowHeight, top, height, overscan);
      setRange((before) => (sameRange(before, next) ? before : next));
    };
    update.current();
  }, [count, rowHeight, overscan]);
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    const follow = (next: Viewport) => {
      viewport.current = next;
      flushSync(() => update.current());
    };
    const onScroll = () => follow({ top: element.scrollTop, height: viewport.current.height });
    const observer = new ResizeObserver(() => follow({ top: element.scrollTop, height: element.clientHeight }));
    element.addEventListener('scroll', onScroll, { passive: true });
    observer.observe(element);
    return () => {
      element.removeEventListener('scroll', onScroll);
      observer.disconnect();
    };
  }, [scroller]);

  const scrollToIndex = useCallback(
    (index: number) => {
      const element = scroller.current;
      if (!element) return;
      const top = scrollTopShowing(index, rowHeight, element.scrollTop, element.clientHeight);
      if (top !== undefined) element.scrollTop = top;
    },
    [scroller, rowHeight],
  );
  // Known from the scroll events: reading or setting scrollTop would force a layout (on every
  // new search, as the list's first rows are about to be laid out anyway).
  const scrollToTop = useCallback(() => {
    if (scroller.current && viewport.current.top !== 0) scroller.current.scrollTop = 0;
  }, [scroller]);
  return { ...range, scrollToIndex, scrollToTop };
}
