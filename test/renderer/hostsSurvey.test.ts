/** The Hosts screen's survey rules (renderer/src/screens/hostsSurveyModel.ts, hostsChangesModel.ts). */
import { describe, expect, test } from 'vitest';
import type { QueryField } from '../../shared/app/hostSurvey';

import { changeKindWords, comparePointParam } from '../../renderer/src/screens/hostsChangesModel';
import {
  addressWidth,
  chipsOf,
  columnsKey,
  csvDelimiter,
  fieldSuggestions,
  listQuery,
  searchSent,
  shortHash,
  storedColumns,
  surveyQuery,
  toggledChip,
  toggledColumn,
  windowTerms,
} from '../../renderer/src/screens/hostsSurveyModel';

const field = (name: string, kind: QueryField['kind'] = 'text'): QueryField => ({ field: name, kind, example: `${name}:x`, values: 1 });
const FIELDS = [field('ip'), field('hits', 'number'), field('host_id.roles.name'), field('host_id.services.port', 'number'), field('host_id.services.tls.subject'), field('host_id.username.user'), field('host_id.last_seen', 'time')];

describe('the filter kept in the URL', () => {
  test('a facet click adds its query text as a chip; a second click on it takes it off', () => {
    const dc = 'host_id.roles.name:"domain controller"';
    const once = toggledChip({ search: 'acme' }, dc);
    expect(chipsOf(once)).toEqual([dc]);
    const twice = toggledChip(toggledChip(once, 'host_id.services.port:443'), dc);
    expect(chipsOf(twice)).toEqual(['host_id.services.port:443']);
    expect(twice.search).toBe('acme');
    expect(toggledChip(toggledChip({}, dc), dc)).toEqual({});
  });

  test('the query, the chips and the seen-in window are sent as one query, each part its own group', () => {
    const params = {
      host_id_qfilter: 'roles.name:dc OR roles.name:dhcp',
      facet: 'host_id.roles.name:"domain controller"\nhost_id.services.port:443',
      start_date: String(Date.UTC(2026, 2, 19) / 1000),
      end_date: `${Date.UTC(2026, 2, 2) / 1000 + 86_399}.999999`,
    };
    expect(surveyQuery(params).q).toBe(
      '(roles.name:dc OR roles.name:dhcp) AND host_id.roles.name:"domain controller" AND host_id.services.port:443 AND host_id.last_seen:>="2026-03-19T00:00:00Z" AND host_id.first_seen:<="2026-03-02T23:59:59.999999Z"',
    );
    expect(windowTerms({ start_date: 'soon' })).toEqual([]);
    expect(surveyQuery({ host_id_qfilter: '  ', facet: '\n' })).toEqual({});
  });

  test('the search is sent from its third character', () => {
    expect(searchSent('je')).toBeUndefined();
    expect(searchSent(' jes ')).toBe('jes');
    expect(surveyQuery({ search: 'je' })).toEqual({});
    expect(surveyQuery({ search: 'jessie' })).toEqual({ search: 'jessie' });
  });

  test('an import filter is sent with its kind of change (changed unless new); a malformed one is not sent', () => {
    expect(surveyQuery({ visit: '3', visit_change: 'new' })).toEqual({ visit: '3', visit_change: 'new' });
    expect(surveyQuery({ visit: '3' })).toEqual({ visit: '3', visit_change: 'changed' });
    expect(surveyQuery({ visit: '3; DROP' })).toEqual({});
    expect(listQuery({ ordering: '-hits', search: 'acme' })).toEqual({ search: 'acme', ordering: '-hits' });
  });
});

describe('the columns', () => {
  test('are remembered per workspace, whatever its name holds', () => {
    expect(columnsKey('site a/b')).not.toBe(columnsKey('site a'));
    expect(storedColumns(null)).toEqual(['ip', 'hostnames', 'roles', 'services', 'hits', 'last_seen']);
    expect(storedColumns('roles,nonsense,users,roles')).toEqual(['ip', 'roles', 'users']);
  });

  test('a column picked takes its declared place; the address stays first and shown', () => {
    expect(toggledColumn(['ip', 'hits'], 'tls_subjects')).toEqual(['ip', 'tls_subjects', 'hits']);
    expect(toggledColumn(['ip', 'hits'], 'hits')).toEqual(['ip']);
    expect(toggledColumn(['ip', 'hits'], 'ip')).toEqual(['ip', 'hits']);
  });

  test('the address column holds the longest address read, an IPv6 address written whole included', () => {
    const rem = (width: string) => Number(width.replace('rem', ''));
    expect(rem(addressWidth(0))).toBe(7.5);
    // 39 characters at about 0.6rem each, and the cell's padding.
    expect(rem(addressWidth('2001:0db8:85a3:0000:0000:8a2e:0370:7334'.length))).toBeGreaterThanOrEqual(39 * 0.6 + 1.2);
  });
});

describe('the query box (the rest of its rules: shared/app/queryAssist.ts, test/shared/queryAssist.test.ts)', () => {
  test('suggests the fields starting with the text first, then those holding it', () => {
    expect(fieldSuggestions('ro', FIELDS).map((f) => f.field)).toEqual(['host_id.roles.name']);
    expect(fieldSuggestions('user', FIELDS).map((f) => f.field)).toEqual(['host_id.username.user']);
    expect(fieldSuggestions('port', FIELDS).map((f) => f.field)).toEqual(['host_id.services.port']);
  });
});

describe('imports and changes', () => {
  test('the CSV is separated as the engineer’s spreadsheet splits lines: by ; where decimals are written with a comma', () => {
    expect(csvDelimiter('en-US')).toBe('comma');
    expect(csvDelimiter('fr-FR')).toBe('semicolon');
    expect(csvDelimiter('de')).toBe('semicolon');
    expect(csvDelimiter('ja-JP')).toBe('comma');
  });

  test('a SHA-256 is shown by its first 12 digits', () => {
    const sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(shortHash(sha)).toBe('e3b0c44298fc…');
  });

  test('a compared point is an import number, the last pull, or a day from its start (since) or to its end (until); now is no parameter', () => {
    expect(comparePointParam({ kind: 'visit', visit: 4 }, 'since')).toBe('4');
    expect(comparePointParam({ kind: 'pull' }, 'since')).toBe('pull');
    expect(comparePointParam({ kind: 'date', day: '2026-03-02' }, 'since')).toBe('2026-03-02T00:00:00Z');
    expect(comparePointParam({ kind: 'date', day: '2026-03-02' }, 'until')).toBe('2026-03-02T23:59:59.999999Z');
    expect(comparePointParam({ kind: 'date', day: '2026-03' }, 'until')).toBeUndefined();
    expect(comparePointParam({ kind: 'now' }, 'until')).toBeUndefined();
    expect(changeKindWords('tls_changed')).toBe('TLS certificates that changed');
  });
});
