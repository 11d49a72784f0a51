/** The app's route table (renderer/src/routes.ts): what a path shows, or "Page not found". */
import { describe, expect, test } from 'vitest';
import { matchRoute } from '../../renderer/src/routes';

describe('the route table', () => {
  test('a path names the route it matches, a literal segment before a parameter', () => {
    expect(matchRoute(['probes'])).toBe('/probes');
    expect(matchRoute(['probes', 'vendor', '12'])).toBe('/probes/:family/:pk');
    expect(matchRoute(['probes', 'new', 'engine'])).toBe('/probes/new/:family');
    expect(matchRoute(['templates', 'new'])).toBe('/templates/new');
    expect(matchRoute(['history', 'central'])).toBe('/history/central');
    expect(matchRoute(['history', 'central', '31'])).toBe('/history/central/:pk');
    expect(matchRoute(['history', '7'])).toBe('/history/:pk');
    expect(matchRoute(['sync', 'conflicts', '4'])).toBe('/sync/conflicts/:seq');
  });

  test('a path the table does not have is not found, however close', () => {
    expect(matchRoute(['no-such-screen'])).toBeUndefined();
    expect(matchRoute(['probes', 'vendor'])).toBeUndefined();
    expect(matchRoute(['settings', 'extra'])).toBeUndefined();
  });
});
