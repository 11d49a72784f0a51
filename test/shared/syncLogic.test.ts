/**
 * The sync's pure logic (app.md §3): the per-field three-way merge, the local view of an object
 * with changes still waiting, the pull's page arithmetic and mass-delete guard, the schedule of
 * automatic syncs, and the proxy's URL rewriting across chunks.
 */
import { describe, expect, test } from 'vitest';
import { canonical, mergeFields, mergeItems, sameValue } from '../../shared/sync/merge';
import { freeName, overlay } from '../../shared/sync/overlay';
import { MAX_PAGES, isMassDelete, pagingProblem, remainingPages } from '../../shared/sync/pullPlan';
import { BACKOFF_MAX_MS, nextSyncDelay, SYNC_INTERVAL_MS } from '../../shared/sync/schedule';
import { rewriteUrl, UrlRewriter } from '../../shared/sync/urlRewrite';

const items = (entries: Record<string, boolean>) => new Map(Object.entries(entries));

describe('three-way merge of one object', () => {
  test('a field only changed here is pushed', () => {
    expect(mergeFields({ location: 'B' }, { location: 'A' }, { location: 'A', name: 'x' })).toEqual({ patch: { location: 'B' }, conflicts: {} });
  });

  test('a field changed on both sides to different values is a conflict with the central value', () => {
    expect(mergeFields({ location: 'B' }, { location: 'A' }, { location: 'C' })).toEqual({ patch: {}, conflicts: { location: 'C' } });
  });

  test('a field changed on both sides to the same value needs nothing', () => {
    expect(mergeFields({ location: 'B' }, { location: 'A' }, { location: 'B' })).toEqual({ patch: {}, conflicts: {} });
  });

  test('fields the central server changed and this side did not are not touched', () => {
    expect(mergeFields({ location: 'B' }, { location: 'A' }, { location: 'A', ntp_server: 'changed there' }).patch).toEqual({ location: 'B' });
  });

  test('interfaces merge by name: additions on both sides both stay', () => {
    const merged = mergeFields(
      { interfaces: [{ name: 'eth0', active: true }, { name: 'eth1', active: true }] },
      { interfaces: [{ name: 'eth0', active: true }] },
      { interfaces: [{ pk: 4, name: 'eth0', active: true }, { pk: 9, name: 'eth2', active: true }] },
    );
    expect(merged.conflicts).toEqual({});
    expect(merged.patch).toEqual({ interfaces: [{ name: 'eth0', active: true }, { name: 'eth1', active: true }, { name: 'eth2', active: true }] });
  });

  test('an interface deleted here and left alone there is deleted; one flipped differently on both sides is a conflict', () => {
    expect(mergeItems(items({ eth0: true, eth1: true }), items({ eth0: true }), items({ eth0: true, eth1: true }))).toEqual(items({ eth0: true }));
    expect(mergeItems(items({ eth0: true }), items({ eth0: false }), items({}))).toBeUndefined();
    const conflict = mergeFields({ interfaces: [{ name: 'eth0', active: false }] }, { interfaces: [{ name: 'eth0', active: true }] }, { interfaces: [] });
    expect(conflict.conflicts).toEqual({ interfaces: [] });
  });

  test('protocols merge by name on their detection flag', () => {
    const merged = mergeFields(
      { protocols: [{ name: 'dns', detection: false }] },
      { protocols: [{ name: 'dns', detection: true }] },
      { protocols: [{ name: 'dns', detection: true }, { name: 'tls', detection: true }] },
    );
    expect(merged.patch).toEqual({ protocols: [{ name: 'dns', detection: false }, { name: 'tls', detection: true }] });
  });

  test('values compare by content: key order does not matter, missing is null', () => {
    expect(canonical({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe(canonical({ a: [1, { c: 3, d: 2 }], b: 1 }));
    expect(sameValue(undefined, null)).toBe(true);
    expect(sameValue('', null)).toBe(false);
  });
});

describe('the local view while changes wait', () => {
  test('scalars show the local value over the pulled one', () => {
    expect(overlay({ pk: 1, name: 'a', location: 'pulled' }, [{ fields: { location: 'mine' }, base: { location: 'old' } }])).toEqual({ pk: 1, name: 'a', location: 'mine' });
  });

  test('items the central server added meanwhile show beside the local ones', () => {
    const view = overlay({ interfaces: [{ pk: 1, name: 'eth0', active: true }, { pk: 2, name: 'eth9', active: true }] }, [
      { fields: { interfaces: [{ name: 'eth0', active: false }] }, base: { interfaces: [{ name: 'eth0', active: true }] } },
    ]);
    expect(view.interfaces).toEqual([{ name: 'eth0', active: false }, { name: 'eth9', active: true }]);
  });

  test('later changes apply after earlier ones', () => {
    expect(overlay({ location: 'x' }, [{ fields: { location: 'one' }, base: {} }, { fields: { location: 'two' }, base: {} }]).location).toBe('two');
  });

  test('a free name is found by numbering', () => {
    const taken = new Set(['edge (local)', 'edge (local) 2']);
    expect(freeName('edge (local)', (n) => taken.has(n))).toBe('edge (local) 3');
    expect(freeName('fresh', (n) => taken.has(n))).toBe('fresh');
  });
});

describe('pull arithmetic', () => {
  test('a first page with everything needs no other page', () => {
    expect(remainingPages({ count: 12, received: 12, hasNext: false }, 1000)).toEqual({ pageSize: 1000, pages: [] });
  });

  test('a server that honours page_size: the pages follow from count', () => {
    expect(remainingPages({ count: 2500, received: 1000, hasNext: true }, 1000)).toEqual({ pageSize: 1000, pages: [2, 3] });
  });

  test('a server that caps page_size at 30: the first page tells the real size', () => {
    const plan = remainingPages({ count: 95, received: 30, hasNext: true }, 1000);
    expect(plan.pageSize).toBe(30);
    expect(plan.pages).toEqual([2, 3, 4]);
  });

  test('a first page whose count would take more than MAX_PAGES pages is refused before any page is listed', () => {
    const lying = { count: Number.MAX_SAFE_INTEGER, received: 1, hasNext: true };
    expect(pagingProblem(lying)).toMatch(/more than 1000000 is refused/);
    expect(remainingPages(lying, 1000).pages).toEqual([]);
    // The last count that still pages: MAX_PAGES pages of 1,000.
    expect(pagingProblem({ count: MAX_PAGES * 1000, received: 1000, hasNext: true })).toBeUndefined();
    expect(pagingProblem({ count: MAX_PAGES * 1000 + 1, received: 1000, hasNext: true })).toMatch(/1000001 pages/);
    // A large central server behind a cap of 30 a page still pages: 10 million hosts.
    expect(pagingProblem({ count: 10_000_000, received: 30, hasNext: true })).toBeUndefined();
  });

  test('a first page with a next link and no objects is refused; an empty last page is not', () => {
    expect(pagingProblem({ count: 50, received: 0, hasNext: true })).toMatch(/next link but no objects/);
    expect(pagingProblem({ count: 0, received: 0, hasNext: false })).toBeUndefined();
  });

  test('deleting 90 % or more of at least 10 rows is a mass delete; fewer rows are never guarded', () => {
    expect(isMassDelete(10, 9)).toBe(true);
    expect(isMassDelete(100, 89)).toBe(false);
    expect(isMassDelete(100, 90)).toBe(true);
    expect(isMassDelete(9, 9)).toBe(false);
  });
});

describe('schedule of automatic syncs', () => {
  test('after a sync that reached the central server: the regular interval', () => {
    expect(nextSyncDelay('done', 0)).toBe(SYNC_INTERVAL_MS);
    expect(nextSyncDelay('conflicts', 0)).toBe(SYNC_INTERVAL_MS);
  });

  test('unreachable: exponential backoff with jitter, capped', () => {
    expect(nextSyncDelay('unreachable', 1, () => 0.5)).toBe(5_000);
    expect(nextSyncDelay('unreachable', 3, () => 0.5)).toBe(20_000);
    expect(nextSyncDelay('unreachable', 30, () => 0.5)).toBe(BACKOFF_MAX_MS);
    expect(nextSyncDelay('unreachable', 1, () => 0)).toBe(4_000);
    expect(nextSyncDelay('unreachable', 1, () => 0.999999)).toBeLessThanOrEqual(6_000);
  });

  test('a refused token pauses automatic syncs', () => {
    expect(nextSyncDelay('auth', 0)).toBeNull();
  });
});

describe('URL rewriting in proxied bodies', () => {
  const from = 'https://central.example/rest/';
  const to = 'http://127.0.0.1:8000/remote/rest/';
  const body = `{"count":3,"next":"${from}appliances/vendor_probe/?page=2","previous":null,"results":[{"name":"é${from}"}]}`;

  test('every split of the body into two chunks gives the same text as rewriting it whole', () => {
    const whole = body.split(from).join(to);
    for (let cut = 0; cut <= body.length; cut++) {
      const rewriter = new UrlRewriter(from, to);
      const out = rewriter.push(body.slice(0, cut)) + rewriter.push(body.slice(cut)) + rewriter.end();
      expect(out).toBe(whole);
    }
  });

  test('byte-sized chunks too', () => {
    const rewriter = new UrlRewriter(from, to);
    let out = '';
    for (const char of body) out += rewriter.push(char);
    expect(out + rewriter.end()).toBe(body.split(from).join(to));
  });

  test('a Location header is rewritten only when it points at the central API', () => {
    expect(rewriteUrl(`${from}rules/source/3/`, from, to)).toBe(`${to}rules/source/3/`);
    expect(rewriteUrl('https://elsewhere/rest/x', from, to)).toBe('https://elsewhere/rest/x');
  });
});
