/**
 * The rows of a fixed-height list to render: those in view of its scroller and a few more,
 * followed as it scrolls or changes size. A scroll that brings other rows into view renders them
 * at once, in the scroll event (flushSync), so that no frame shows the list without its rows.
 */
import { useCallback, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { flushSync } from 'react-dom';
import { NO_ROWS, rowsInView, sameRange, scrollTopShowing, type RowRange } from './rowWindow';

export interface RowWindow extends RowRange {
  /** Scrolls as little as needed for row `index` to be wholly in view. */
  scrollToIndex(index: number): void;
  scrollToTop(): void;
}

export function useRowWindow(scroller: RefObject<HTMLElement | null>, count: number, rowHeight: number, overscan: number): RowWindow {
  const [range, setRange] = useState<RowRange>(NO_ROWS);
  const measure = useRef<() => void>(() => {});
  useLayoutEffect(() => {
    const element = scroller.current;
    if (!element) return;
    measure.current = () => {
      const next = rowsInView(count, rowHeight, element.scrollTop, element.clientHeight, overscan);
      setRange((before) => (sameRange(before, next) ? before : next));
    };
    measure.current();
    const onScroll = () => flushSync(() => measure.current());
    const observer = new ResizeObserver(() => measure.current());
    element.addEventListener('scroll', onScroll, { passive: true });
    observer.observe(element);
    return () => {
      element.removeEventListener('scroll', onScroll);
      observer.disconnect();
    };
  }, [scroller, count, rowHeight, overscan]);

  const scrollToIndex = useCallback(
    (index: number) => {
      const element = scroller.current;
      if (!element) return;
      const top = scrollTopShowing(index, rowHeight, element.scrollTop, element.clientHeight);
      if (top !== undefined) element.scrollTop = top;
    },
    [scroller, rowHeight],
  );
  const scrollToTop = useCallback(() => {
    if (scroller.current) scroller.current.scrollTop = 0;
  }, [scroller]);
  return { ...range, scrollToIndex, scrollToTop };
}
