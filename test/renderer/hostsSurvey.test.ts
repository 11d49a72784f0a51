/** The Hosts screen's survey rules (renderer/src/screens/hostsSurveyModel.ts, hostsChangesModel.ts). */
import { describe, expect, test } from 'vitest';
import type { QueryField } from '../../shared/app/hostSurvey';

import { changeKindWords, comparePointParam } from '../../renderer/src/screens/hostsChangesModel';
import {
  addressWidth,
  andQuery,
  caretWord,
  chipsOf,
  columnsKey,
  completed,
  fieldSuggestions,
  isKnownField,
  listQuery,
  queryFieldNames,
  queryValue,
  searchSent,
  shortHash,
  storedColumns,
  surveyQuery,
  toggledChip,
  toggledColumn,
  unknownFields,
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
    expect(andQuery(['', '  a:b '])).toBe('a:b');
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

describe('the query box', () => {
  test('knows a listed field, a path above one, with or without host_id.', () => {
    expect(isKnownField('host_id.roles.name', FIELDS)).toBe(true);
    expect(isKnownField('roles.name', FIELDS)).toBe(true);
    expect(isKnownField('services', FIELDS)).toBe(true);
    expect(isKnownField('host_id', FIELDS)).toBe(true);
    expect(isKnownField('roles', FIELDS)).toBe(true);
    expect(isKnownField('role', FIELDS)).toBe(false);
    expect(isKnownField('services.po', FIELDS)).toBe(false);
  });

  test('reads the field names of a query, not the words inside quoted values', () => {
    expect(queryFieldNames('roles.name:"a:b" AND (NOT services.port:>=443) OR hits>2 jessie')).toEqual(['roles.name', 'services.port', 'hits']);
    expect(unknownFields('roles:dc AND role:dc AND users:x', FIELDS)).toEqual(['role', 'users']);
    expect(unknownFields('controller', FIELDS)).toEqual([]);
  });

  test('finds the word under the caret: a field being typed, or the value after field:', () => {
    expect(caretWord('roles.na', 8)).toEqual({ kind: 'field', prefix: 'roles.na', start: 0, end: 8 });
    expect(caretWord('ip:10 AND roles.name:dom', 24)).toEqual({ kind: 'value', field: 'roles.name', prefix: 'dom', start: 21, end: 24 });
    expect(caretWord('roles.name:"domain con', 22)).toEqual({ kind: 'value', field: 'roles.name', prefix: 'domain con', start: 11, end: 22 });
    expect(caretWord('a:b AND', 7)).toBeUndefined();
  });

  test('completes a field with its colon, a value quoted when it is more than a word', () => {
    const typed = 'ip:10 AND rol';
    const word = caretWord(typed, typed.length)!;
    expect(completed(typed, word, 'host_id.roles.name')).toEqual({ query: 'ip:10 AND host_id.roles.name:', caret: 29 });
    const value = 'roles.name:"domain con';
    expect(completed(value, caretWord(value, value.length)!, queryValue('domain controller')).query).toBe('roles.name:"domain controller" ');
    expect(queryValue('dc01.acme.local')).toBe('dc01.acme.local');
    expect(queryValue('say "hi"')).toBe('"say \\"hi\\""');
    expect(queryValue('OR')).toBe('"OR"');
  });

  test('suggests the fields starting with the text first, then those holding it', () => {
    expect(fieldSuggestions('ro', FIELDS).map((f) => f.field)).toEqual(['host_id.roles.name']);
    expect(fieldSuggestions('user', FIELDS).map((f) => f.field)).toEqual(['host_id.username.user']);
    expect(fieldSuggestions('port', FIELDS).map((f) => f.field)).toEqual(['host_id.services.port']);
  });
});

describe('imports and changes', () => {
  test('a SHA-256 is shown by its first 12 digits', () => {
    const sha = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
    expect(shortHash(sha)).toBe('e3b0c44298fc…');
  });

  test('a compared point is an import number, the last pull, or a complete day; now is no parameter', () => {
    expect(comparePointParam({ kind: 'visit', visit: 4 })).toBe('4');
    expect(comparePointParam({ kind: 'pull' })).toBe('pull');
    expect(comparePointParam({ kind: 'date', day: '2026-03-02' })).toBe('2026-03-02');
    expect(comparePointParam({ kind: 'date', day: '2026-03' })).toBeUndefined();
    expect(comparePointParam({ kind: 'now' })).toBeUndefined();
    expect(changeKindWords('tls_changed')).toBe('TLS certificates changed');
  });
});
