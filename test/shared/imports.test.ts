/**
 * shared/api/imports.ts: an import body checked from its text, entry by entry, gives exactly the
 * answer of the body parsed whole (parseBody) and then checked; a refusal holds at most
 * MAX_REPORTED_MESSAGES messages, and with fewer errors it is DRF's list as it is.
 */
import { describe, expect, test } from 'vitest';
import { checkHostImport, checkImport, checkImportText, checkThreatImport, firstMessages, MAX_REPORTED_MESSAGES, type EntryChecker, type ImportCheck } from '../../shared/api/imports';
import { message } from '../../shared/api/messages';
import { arrayItems, jsonSyntaxError, parseJsonText } from '../../shared/api/pythonJson';
import { prng } from '../helpers/prng';

/** The answer of the old path: the whole document parsed, then checked. */
function parsedWhole<T>(text: string, check: EntryChecker<T>): ImportCheck<T> {
  const parsed = parseJsonText(text);
  return parsed.ok ? checkImport(parsed.value, check) : { ok: false, status: 400, body: { detail: message.jsonParseError(parsed.reason) } };
}

const HOST = '{"ip": "10.0.0.1", "host_id": {"first_seen": "2024-01-01T00:00:00Z", "last_seen": "2024-01-02T00:00:00Z", "hostname": [{"host": "a,]b[\\"c"}]}}';
const THREAT = '{"pk": 7, "name": "T [x], {y}", "links": {"a": [1, {"b": "]"}]}}';

const DOCUMENTS = [
  '[]',
  ' [ ] ',
  `[${HOST}]`,
  `\n[${HOST} , ${HOST}]\n`,
  `[${THREAT}, ${THREAT}]`,
  `[${HOST}, 1, "x", null, [], {}]`,
  `[${THREAT}, {"pk": "x"}, {"name": ""}]`,
  '{}',
  '{"a": [1, 2]}',
  'null',
  '"text"',
  '12',
  '1.5',
  'true',
  '[1,]',
  '[,]',
  '[1 2]',
  `[${HOST}`,
  `[${HOST}] x`,
  '["a\\"]", "b"]',
  '["\\u00e9", "\\ud83d\\ude00"]',
  '[' + '9'.repeat(450) + ', x]',
  '[' + '['.repeat(300) + ']'.repeat(300) + ']',
  '\ufeff[]',
  '[NaN]',
  '[1e999]',
  '["a\u0001"]',
];


/** Documents with one character cut, doubled or replaced by JSON punctuation. */
function mutations(count: number): string[] {
  const random = prng(8);
  const base = [`[${HOST}, ${THREAT}, 1, "s"]`, `[${THREAT}, ${THREAT}]`];
  const punctuation = ['[', ']', '{', '}', ',', ':', '"', '\\', ' ', '1', 'x'];
  return Array.from({ length: count }, (_, i) => {
    const text = base[i % base.length]!;
    const at = Math.floor(random() * text.length);
    const kind = Math.floor(random() * 3);
    const char = punctuation[Math.floor(random() * punctuation.length)]!;
    if (kind === 0) return text.slice(0, at) + text.slice(at + 1);
    if (kind === 1) return text.slice(0, at) + text[at] + text.slice(at);
    return text.slice(0, at) + char + text.slice(at + 1);
  });
}

describe('checked from its text, an import gets the answer of the body parsed whole', () => {
  const corpus = [...DOCUMENTS, ...mutations(600)];
  test.each([
    ['host identities', checkHostImport as EntryChecker<unknown>],
    ['threats', checkThreatImport as EntryChecker<unknown>],
  ])('%s', (_kind, check) => {
    for (const text of corpus) expect(checkImportText(text, check), text).toEqual(parsedWhole(text, check));
  });

  test("the syntax check is the verdict of the whole parse, in Python's words", () => {
    for (const text of corpus) {
      const parsed = parseJsonText(text);
      expect(jsonSyntaxError(text), text).toBe(parsed.ok ? undefined : parsed.reason);
    }
  });

  test("an array's items come one at a time: a caller that stops parses no more", () => {
    const items = arrayItems(`[1, {"a": "],"}, [2, 3], "x"]`);
    expect(items.next().value).toBe(1);
    expect(items.next().value).toEqual({ a: '],' });
    expect([...items]).toEqual([[2, 3], 'x']);
  });
});

/** The per-entry report of a refused import. */
function reportOf(checked: ImportCheck<unknown>): unknown[] {
  if (checked.ok || !Array.isArray(checked.body)) throw new Error(`not a per-entry refusal: ${JSON.stringify(checked)}`);
  return checked.body;
}

describe('a refusal reports at most 100 messages', () => {
  test("under the bound, it is DRF's list, one object per entry", () => {
    const checked = checkImportText(`[${THREAT}, {"pk": "x"}, ${THREAT}]`, checkThreatImport);
    expect(checked).toEqual({ ok: false, status: 400, body: [{}, { pk: ['A valid integer is required.'], name: ['This field is required.'] }, {}] });
  });

  test('checking stops at the entry holding the 100th message; that entry is cut to fit', () => {
    // Three messages an entry (pk, name, criticity): the 34th entry holds the 100th, with one of its three.
    const bad = '{"pk": "x", "criticity": "high"}';
    const checked = checkImportText(`[${Array(50).fill(bad).join(',')}]`, checkThreatImport);
    const report = reportOf(checked);
    expect(report).toHaveLength(34);
    expect(report[33]).toEqual({ pk: ['A valid integer is required.'] });
  });

  test("an entry's own lists are bounded before they are checked", () => {
    const text = `[{"ip": "10.0.0.1", "host_id": {"first_seen": "2024-01-01T00:00:00Z", "last_seen": "2024-01-01T00:00:00Z", "services": [${Array(1000).fill('1').join(',')}]}}]`;
    const checked = checkImportText(text, checkHostImport);
    const [errors] = reportOf(checked) as { host_id: { services: Record<string, unknown> } }[];
    expect(Object.keys(errors!.host_id.services)).toEqual(Array.from({ length: MAX_REPORTED_MESSAGES }, (_, i) => String(i)));
  });

  test('firstMessages keeps messages in order and says how many it kept', () => {
    const errors = { a: ['1', '2'], b: { c: ['3'] }, d: ['4'] };
    expect(firstMessages(errors, 3)).toEqual({ value: { a: ['1', '2'], b: { c: ['3'] } }, count: 3 });
    expect(firstMessages([{}, { x: ['1', '2'] }, {}], 1)).toEqual({ value: [{}, { x: ['1'] }], count: 1 });
  });
});
