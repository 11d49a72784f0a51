/** The states of a screen's read (renderer/src/data/queryState.ts), as useQuery goes through them. */
import { describe, expect, test } from 'vitest';
import { answered, failed, IDLE, shownFor, started, type QueryState } from '../../renderer/src/data/queryState';

const refused = new Error('The server answered 500.');

describe('a read of one key', () => {
  test('starts loading with nothing shown, then holds the answer', () => {
    const loading = started<string>(IDLE, '/a/', false);
    expect(loading).toEqual({ key: '/a/', data: undefined, error: undefined, loading: true });
    expect(answered('/a/', 'A')).toEqual({ key: '/a/', data: 'A', error: undefined, loading: false });
  });

  test('a reload keeps the answer and the failure shown until the next answer replaces both', () => {
    const shown: QueryState<string> = { key: '/a/', data: 'A', error: refused, loading: false };
    expect(started(shown, '/a/', false)).toEqual({ ...shown, loading: true });
    expect(answered('/a/', 'A2')).toEqual({ key: '/a/', data: 'A2', error: undefined, loading: false });
  });

  test('a failure is kept beside the answer read before: the screen chooses what to show', () => {
    const reloading: QueryState<string> = { key: '/a/', data: 'A', error: undefined, loading: true };
    expect(failed(reloading, '/a/', refused)).toEqual({ key: '/a/', data: 'A', error: refused, loading: false });
  });
});

describe('another key', () => {
  const shown: QueryState<string> = { key: '/a/', data: 'A', error: refused, loading: false };

  test("starts empty: one object's answer is never shown for another", () => {
    expect(started(shown, '/b/', false)).toEqual({ key: '/b/', data: undefined, error: undefined, loading: true });
  });

  test('keeps the previous answer while it loads when asked (a list growing page by page)', () => {
    expect(started(shown, '/b/', true)).toEqual({ key: '/b/', data: 'A', error: refused, loading: true });
  });

  test('is already shown so by the render that names it, before its load starts', () => {
    expect(shownFor(shown, '/b/', false)).toEqual({ key: '/b/', data: undefined, error: undefined, loading: true });
    expect(shownFor(shown, '/b/', true).data).toBe('A');
    expect(shownFor(shown, '/a/', false)).toBe(shown);
  });

  test('no key reads nothing', () => {
    expect(shownFor(shown, undefined, true)).toEqual(IDLE);
  });
});
