/** api.md §2: list parameters over HTTP, with enough objects to page. */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Client } from '../helpers/http';
import { startServer, type TestServer } from '../helpers/server';

let server: TestServer;
let api: Client;
const LOCATIONS = ['Paris', 'Lyon', 'Nantes'];

beforeAll(async () => {
  server = await startServer();
  api = server.api;
  // 70 probes: three sites, two versions, names that sort differently from their pks.
  for (let i = 0; i < 70; i++) {
    const reply = await api.post('/rest/appliances/engine_probe/', {
      name: `probe-${String((i * 37) % 70).padStart(2, '0')}`,
      address: `10.0.${i}.1`,
      location: LOCATIONS[i % 3],
      version: i % 2 ? '7.0' : '6.0',
      enabled: i % 5 !== 0,
      descr: i === 10 ? 'Core switch room' : '',
    });
    expect(reply.status).toBe(201);
  }
});
afterAll(() => server.close());

type Page = { count: number; next: string | null; previous: string | null; results: { pk: number; name: string; location: string; version: string }[] };
const page = async (query: string): Promise<Page> => (await api.get(`/rest/appliances/engine_probe/${query}`)).json();

describe('pagination', () => {
  test('30 results by default, with next and no previous; next is null on the last page', async () => {
    const first = await page('');
    expect(first.count).toBe(70);
    expect(first.results).toHaveLength(30);
    expect(first.previous).toBeNull();
    expect(first.next).toBe(`${server.url}/rest/appliances/engine_probe/?page=2`);
    const last = await page('?page=3');
    expect(last.results).toHaveLength(10);
    expect(last.next).toBeNull();
    expect(last.previous).toBe(`${server.url}/rest/appliances/engine_probe/?page=2`);
  });

  test('next and previous keep every other parameter, keys sorted and re-encoded; page 2 links back without page', async () => {
    const second = await page('?search=probe&page_size=10&page=2&location=Paris');
    expect(second.next).toBe(`${server.url}/rest/appliances/engine_probe/?location=Paris&page=3&page_size=10&search=probe`);
    expect(second.previous).toBe(`${server.url}/rest/appliances/engine_probe/?location=Paris&page_size=10&search=probe`);
  });

  test('page_size is honoured, clamped to 10000, and means 30 when zero, negative or not a number', async () => {
    expect((await page('?page_size=65')).results).toHaveLength(65);
    expect((await page('?page_size=100000')).results).toHaveLength(70);
    for (const size of ['0', '-5', 'abc', '']) expect((await page(`?page_size=${size}`)).results).toHaveLength(30);
  });

  test('page=last is the last page; an empty page is page 1', async () => {
    expect((await page('?page=last')).results).toHaveLength(10);
    expect((await page('?page=')).results).toHaveLength(30);
  });

  test('a page past the end, 0, negative or not a number is 404 Invalid page.', async () => {
    for (const p of ['4', '0', '-1', 'abc', '2.5']) {
      const reply = await api.get(`/rest/appliances/engine_probe/?page=${p}`);
      expect(reply.status, p).toBe(404);
      expect(reply.json()).toEqual({ detail: 'Invalid page.' });
    }
  });

  test('an empty result is page 1 with no results', async () => {
    expect(await page('?location=Nowhere')).toEqual({ count: 0, next: null, previous: null, results: [] });
  });
});

describe('ordering', () => {
  test('the default ordering is by name', async () => {
    const names = (await page('?page_size=70')).results.map((r) => r.name);
    expect(names).toEqual([...names].sort());
  });

  test('several terms, the second descending; ties broken by pk so that pages are stable', async () => {
    const all: Page['results'] = [];
    for (let p = 1; p <= 3; p++) all.push(...(await page(`?ordering=location,-version&page=${p}`)).results);
    expect(new Set(all.map((r) => r.pk)).size).toBe(70);
    const keys = all.map((r) => [r.location, r.version, r.pk] as const);
    const sorted = [...keys].sort((a, b) => (a[0] !== b[0] ? (a[0] < b[0] ? -1 : 1) : a[1] !== b[1] ? (a[1] > b[1] ? -1 : 1) : a[2] - b[2]));
    expect(keys).toEqual(sorted);
  });

  test('terms naming fields outside the ordering fields are ignored', async () => {
    const withBogus = (await page('?ordering=descr,-pk')).results.map((r) => r.pk);
    const plain = (await page('?ordering=-pk')).results.map((r) => r.pk);
    expect(withBogus).toEqual(plain);
    expect((await page('?ordering=bogus')).results.map((r) => r.name)).toEqual((await page('')).results.map((r) => r.name));
  });
});

describe('search', () => {
  test('terms split on commas and spaces must all be found, case-insensitively', async () => {
    const paris7 = await page('?search=PARIS,10.0.&page_size=100');
    expect(paris7.count).toBe(24);
    expect((await page('?search=paris lyon')).count).toBe(0);
  });

  test('a quoted phrase is one term', async () => {
    expect((await page('?search="switch room"')).count).toBe(1);
    expect((await page('?search="room switch"')).count).toBe(0);
  });

  test('a short term still matches as a substring', async () => {
    expect((await page('?search=ly')).count).toBe(23);
  });

  test('an empty search is no filter', async () => {
    expect((await page('?search=')).count).toBe(70);
  });
});

describe('filters', () => {
  test('exact, case-sensitive match on strings; several filters combine with AND and with search', async () => {
    expect((await page('?location=Paris')).count).toBe(24);
    expect((await page('?location=paris')).count).toBe(0);
    expect((await page('?location=Paris&version=7.0')).count).toBe(12);
    expect((await page('?location=Paris&version=7.0&search=probe-1')).results.every((r) => r.name.includes('probe-1'))).toBe(true);
  });

  test('booleans accept true/false/True/False/1/0; anything else is no filter', async () => {
    expect((await page('?enabled=false')).count).toBe(14);
    expect((await page('?enabled=0')).count).toBe(14);
    expect((await page('?enabled=True')).count).toBe(56);
    expect((await page('?enabled=maybe')).count).toBe(70);
  });

  test('an empty value means no filter; unknown parameters are ignored', async () => {
    expect((await page('?location=&colour=blue')).count).toBe(70);
  });

  test('a pk filter that is not a number is 400 Enter a number.', async () => {
    const reply = await api.get('/rest/appliances/engine_probe/?ruleset=abc');
    expect(reply.status).toBe(400);
    expect(reply.json()).toEqual({ ruleset: ['Enter a number.'] });
  });

  test('a choice outside the choices is 400', async () => {
    const reply = await api.get('/rest/appliances/appliances/?type=router');
    expect(reply.json()).toEqual({ type: ['Select a valid choice. router is not one of the available choices.'] });
  });
});
