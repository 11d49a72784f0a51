/** api.md §2 list parameters, as pure functions. */
import { describe, expect, test } from 'vitest';
import { ApiError } from '../../shared/api/errors';
import {
  parseFilterValue,
  parseListQuery,
  parseOrdering,
  parsePage,
  parsePageSize,
  resolvePage,
  splitSearchTerms,
} from '../../shared/api/listParams';
import { encodeQuery, parseQuery, queryGet, replaceParam, removeParam } from '../../shared/api/queryString';
import { engineProbe, vendorProbe, type Field } from '../../shared/resources';

function apiError(fn: () => unknown): ApiError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('no ApiError thrown');
}

describe('query strings (Django QueryDict / urlencode)', () => {
  test('the last value of a repeated key wins; blank values are kept', () => {
    const pairs = parseQuery('page=1&page=2&name=&flag');
    expect(queryGet(pairs, 'page')).toBe('2');
    expect(queryGet(pairs, 'name')).toBe('');
    expect(queryGet(pairs, 'flag')).toBe('');
  });

  test('plus is a space, percent escapes are UTF-8, broken escapes stay as written', () => {
    expect(parseQuery('q=a+b%20c%C3%A9&x=%zz&y=%')).toEqual([
      ['q', 'a b cé'],
      ['x', '%zz'],
      ['y', '%'],
    ]);
  });

  test('encoding sorts keys, keeps repeated keys in order and quotes as Python quote_plus', () => {
    expect(encodeQuery([['search', 'a b/é'], ['b', '2'], ['a', '1'], ['b', '1']])).toBe('a=1&b=2&b=1&search=a+b%2F%C3%A9');
  });

  test('replacing and removing a parameter', () => {
    const pairs = parseQuery('page=3&search=x');
    expect(encodeQuery(replaceParam(pairs, 'page', '4'))).toBe('page=4&search=x');
    expect(encodeQuery(removeParam(pairs, 'page'))).toBe('search=x');
  });
});

describe('pagination parameters', () => {
  test('page_size: 1…10000 honoured, larger clamped, anything else the default 30', () => {
    expect(parsePageSize('65')).toBe(65);
    expect(parsePageSize('10000')).toBe(10000);
    expect(parsePageSize('10001')).toBe(10000);
    for (const raw of [undefined, '', '0', '-3', 'ten', '1.5']) expect(parsePageSize(raw)).toBe(30);
  });

  test('page: empty means 1, last is last, others must be positive integers', () => {
    expect(parsePage(undefined)).toBe(1);
    expect(parsePage('')).toBe(1);
    expect(parsePage('last')).toBe('last');
    expect(parsePage('7')).toBe(7);
    for (const raw of ['0', '-1', 'two', '2.0']) expect(parsePage(raw)).toBe('invalid');
  });

  test('resolving a page against the count: empty sets are page 1, past the end is 404 Invalid page.', () => {
    expect(resolvePage(1, 0, 30)).toBe(1);
    expect(resolvePage('last', 65, 30)).toBe(3);
    for (const page of [4, 'invalid'] as const) {
      const error = apiError(() => resolvePage(page, 65, 30));
      expect([error.status, error.body]).toEqual([404, { detail: 'Invalid page.' }]);
    }
  });
});

describe('ordering', () => {
  const allowed = ['pk', 'name', 'updated'];
  test('several terms, descending with a minus; unknown terms dropped', () => {
    expect(parseOrdering('name,-updated,colour', allowed, ['name'])).toEqual([
      { field: 'name', descending: false },
      { field: 'updated', descending: true },
    ]);
  });

  test('nothing valid left means the default ordering', () => {
    expect(parseOrdering('--name,+pk,colour', allowed, ['-pk'])).toEqual([{ field: 'pk', descending: true }]);
    expect(parseOrdering(undefined, allowed, ['name'])).toEqual([{ field: 'name', descending: false }]);
  });
});

describe('search terms (DRF 3.15)', () => {
  test('commas and whitespace separate terms', () => {
    expect(splitSearchTerms('lyon, core  probe,,x')).toEqual(['lyon', 'core', 'probe', 'x']);
  });

  test('a double-quoted phrase is one term, quotes removed', () => {
    expect(splitSearchTerms('"core switch" lyon')).toEqual(['core switch', 'lyon']);
  });

  test('a NUL character is a 400', () => {
    const error = apiError(() => parseListQuery(vendorProbe, parseQuery('search=a%00b')));
    expect([error.status, error.body]).toEqual([400, ['Null characters are not allowed.']]);
  });
});

describe('filter values (django-filter)', () => {
  const field = (name: string): Field => vendorProbe.fields[name]!;
  test('booleans: true/false/1/0 in any case, anything else is no filter', () => {
    expect(parseFilterValue(field('enabled'), 'TRUE')).toEqual({ value: true });
    expect(parseFilterValue(field('enabled'), '0')).toEqual({ value: false });
    expect(parseFilterValue(field('enabled'), 'yes')).toEqual({});
  });

  test('choices must be among the choices', () => {
    expect(parseFilterValue(field('capture_method'), 'pcap')).toEqual({ value: 'pcap' });
    expect(parseFilterValue(field('capture_method'), 'dpdk')).toEqual({
      error: 'Select a valid choice. dpdk is not one of the available choices.',
    });
  });

  test('pks and numbers must be numbers', () => {
    expect(parseFilterValue(field('parent_tmpl'), ' 12 ')).toEqual({ value: 12 });
    expect(parseFilterValue(field('parent_tmpl'), 'abc')).toEqual({ error: 'Enter a number.' });
  });

  test('strings are exact, trimmed; empty means no filter', () => {
    expect(parseFilterValue(field('location'), ' Lyon ')).toEqual({ value: 'Lyon' });
    expect(parseFilterValue(field('location'), '')).toEqual({});
  });

  test('every invalid filter is reported at once, in the filter order', () => {
    const error = apiError(() => parseListQuery(engineProbe, parseQuery('ruleset=x&enabled=maybe&name=a%00')));
    expect(error.body).toEqual({ name: ['Null characters are not allowed.'], ruleset: ['Enter a number.'] });
  });
});
