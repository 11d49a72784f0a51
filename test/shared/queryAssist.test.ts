/**
 * The query box's logic (shared/app/queryAssist.ts, docs/survey.md): values quoted so that they
 * parse back to themselves, chips combined with a typed query, the fields a query names and those
 * the workspace lacks, and what is typed at the cursor for completion.
 */
import { describe, expect, test } from 'vitest';
import { matchesHost, parseQFilter, QueryHost, type QueryNode } from '../../shared/api/qfilter';
import { applyCompletion, combineQuery, cursorContext, fieldsNamed, qfilterTerm, qfilterValue, unknownFields } from '../../shared/app/queryAssist';
import { prng } from '../helpers/prng';

/** Does `text` match a host whose `roles.name` is `value` (and only that)? */
function selects(query: string, value: string): boolean {
  const tree = parseQFilter(query)!;
  return matchesHost(tree, new QueryHost('10.0.0.1', 0, { roles: [{ name: value }] }));
}

const HOSTILE = [
  'domain controller',
  'a"b',
  'back\\slash',
  'trailing\\',
  '"',
  '\\"',
  'wild*card?',
  '*',
  '(x) OR y',
  'AND',
  'NOT',
  '!bang',
  '&&',
  '>5',
  ':<=',
  'tab\there',
  'new\nline',
  '\u0000nul\u0007bel',
  '\u202eright-to-left',
  '=cmd|\' /C calc\'!A0',
  '  spaced  ',
  'ünïcödé ΣΑΣ',
  '😀 emoji',
  'x'.repeat(3000),
];

describe('a value as query text', () => {
  test('plain words stay bare; anything else is quoted with its quotes and backslashes escaped', () => {
    expect(qfilterValue('dhcp')).toBe('dhcp');
    expect(qfilterValue('443')).toBe('443');
    expect(qfilterValue('dc01.corp-1_x')).toBe('dc01.corp-1_x');
    expect(qfilterValue('domain controller')).toBe('"domain controller"');
    expect(qfilterValue('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(qfilterValue('AND')).toBe('"AND"');
    expect(qfilterValue('mail*')).toBe('"mail*"');
    expect(qfilterTerm('host_id.roles.name', 'domain controller')).toBe('host_id.roles.name:"domain controller"');
  });

  test.each(HOSTILE.map((value) => [value]))('%j parses back to exactly that value', (value) => {
    const term = qfilterTerm('host_id.roles.name', value);
    const tree = parseQFilter(term) as QueryNode & { kind: 'term' };
    expect(tree.kind).toBe('term');
    expect(tree.field).toEqual({ path: 'roles.name', within: 'entry' });
    // The whole value and nothing else: no wildcard, no operator survives quoting.
    expect(selects(term, value)).toBe(true);
    expect(selects(term, `${value}x`)).toBe(false);
    expect(selects(term, `x${value}`)).toBe(false);
  });

  test('random texts of every kind of character parse back to themselves', () => {
    const random = prng(7);
    const alphabet = ['a', 'Z', '0', ' ', '"', '\\', '*', '?', '(', ')', ':', '>', '<', '=', '!', '&', '|', '-', '\t', '\n', 'é', '😀', '\u0001'];
    for (let n = 0; n < 500; n++) {
      const value = Array.from({ length: 1 + Math.floor(random() * 12) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
      const term = qfilterTerm('host_id.roles.name', value);
      expect(selects(term, value), JSON.stringify(value)).toBe(true);
      expect(selects(term, `${value}_`), JSON.stringify(value)).toBe(false);
    }
  });
});

describe('chips combined with the typed query', () => {
  test('the typed query in parentheses AND each chip; blank parts left out', () => {
    expect(combineQuery('', [])).toBe('');
    expect(combineQuery('  giorgio  ', [])).toBe('giorgio');
    expect(combineQuery('', ['host_id.services.port:443'])).toBe('host_id.services.port:443');
    expect(combineQuery('a OR b', ['host_id.in_home_net:true', 'host_id.roles.name:"domain controller"'])).toBe(
      '(a OR b) AND host_id.in_home_net:true AND host_id.roles.name:"domain controller"',
    );
    expect(combineQuery('jessie', ['host_id.username.user:*'])).toBe('jessie AND host_id.username.user:*');
    expect(combineQuery('', ['a OR b', 'c'])).toBe('(a OR b) AND c');
  });

  test('an OR in the typed query stays inside: the chip narrows both sides', () => {
    const query = combineQuery('roles.name:dhcp OR roles.name:printer', [qfilterTerm('host_id.in_home_net', 'true')]);
    const host = (role: string, home: boolean) => new QueryHost('10.0.0.1', 0, { roles: [{ name: role }], in_home_net: home });
    const tree = parseQFilter(query)!;
    expect(matchesHost(tree, host('dhcp', true))).toBe(true);
    expect(matchesHost(tree, host('printer', false))).toBe(false);
  });
});

describe('fields named, and unknown ones', () => {
  const known = ['ip', 'hits', 'host_id.roles.name', 'host_id.services.port', 'host_id.services.values.app_proto', 'host_id.username.user', 'host_id.in_home_net'];

  test('the fields of a query in full, each once; a query that does not parse says why', () => {
    expect(fieldsNamed('roles.name:dc AND (host_id.services.port:443 OR NOT roles.name:x) giorgio ip:10.*')).toEqual({
      fields: ['host_id.roles.name', 'host_id.services.port', 'ip'],
    });
    expect(fieldsNamed('roles.name:"dc')).toEqual({ error: 'character 12: unterminated quoted string.' });
  });

  test('an unknown field is named, with the nearest known one', () => {
    expect(unknownFields('host_id.role.name:"domain controller"', known)).toEqual([
      { field: 'host_id.role.name', suggestion: 'host_id.roles.name', message: 'no such field: host_id.role.name — did you mean host_id.roles.name?' },
    ]);
    expect(unknownFields('roles:dc', known)).toEqual([]);
    expect(unknownFields('host_id.usernme.user:x', known)[0]?.suggestion).toBe('host_id.username.user');
    expect(unknownFields('host_id.zzzzzzzzzz:1', known)).toEqual([{ field: 'host_id.zzzzzzzzzz', message: 'no such field: host_id.zzzzzzzzzz' }]);
  });

  test('fields holding known ones, keyword sub-fields, bare terms and host_id itself are known', () => {
    expect(unknownFields('host_id.services:443 host_id.roles.name.keyword:DHCP controller host_id:x hits:>1 ip:10.0.0.1', known)).toEqual([]);
  });
});

describe('what is typed at the cursor', () => {
  test('a field name being typed, with what a completion replaces', () => {
    const query = 'giorgio AND host_id.rol';
    expect(cursorContext(query, query.length)).toEqual({ kind: 'field', prefix: 'host_id.rol', from: 12, to: query.length });
    expect(cursorContext('!rol', 4)).toEqual({ kind: 'field', prefix: 'rol', from: 1, to: 4 });
    // The cursor inside a field of a whole term: only the field is replaced.
    expect(cursorContext('(roles.name:dhcp)', 4)).toEqual({ kind: 'field', prefix: 'rol', from: 1, to: 11 });
  });

  test('a value of a field, unquoted, with the field in full', () => {
    expect(cursorContext('roles.name:dom', 14)).toEqual({ kind: 'value', field: 'host_id.roles.name', prefix: 'dom', from: 11, to: 14 });
    expect(cursorContext('host_id.roles.name:"domain con', 30)).toEqual({ kind: 'value', field: 'host_id.roles.name', prefix: 'domain con', from: 19, to: 30 });
    expect(cursorContext('hits:>=1', 8)).toEqual({ kind: 'value', field: 'hits', prefix: '1', from: 7, to: 8 });
    expect(cursorContext('roles.name:"a \\"b" x', 16)).toMatchObject({ kind: 'value', prefix: 'a "', from: 11, to: 18 });
  });

  test('nothing to complete in an operator or a bare quoted value', () => {
    expect(cursorContext('a AND b', 5)).toBeUndefined();
    expect(cursorContext('"dom', 4)).toBeUndefined();
  });

  test('a completion put in place: a field with its colon, a value quoted', () => {
    const query = 'x AND roles.na';
    const field = cursorContext(query, query.length)!;
    expect(applyCompletion(query, field, 'host_id.roles.name')).toEqual({ query: 'x AND host_id.roles.name:', cursor: 25 });
    const typed = 'host_id.roles.name:dom AND y';
    const value = cursorContext(typed, 22)!;
    expect(applyCompletion(typed, value, 'domain controller')).toEqual({ query: 'host_id.roles.name:"domain controller" AND y', cursor: 38 });
  });
});
