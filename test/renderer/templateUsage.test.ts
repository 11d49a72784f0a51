/** What uses a template, in counts (renderer/src/screens/templateUsage.ts; api.md §4 rule 8). */
import { describe, expect, test } from 'vitest';
import { summariseRefusal, usageBadge, usersText } from '../../renderer/src/screens/templateUsage';

describe('what uses a template, counted', () => {
  test('templates and probes are counted, each kind only when there is one', () => {
    expect(usersText(2, 31)).toBe('2 templates and 31 probes');
    expect(usersText(1, 0)).toBe('1 template');
    expect(usersText(0, 1)).toBe('1 probe');
    expect(usersText(0, 0)).toBeUndefined();
    expect(usersText(0, 12345)).toBe('12,345 probes');
  });

  test("a tree row's badge says both, or nothing while nothing uses it (or the probes are still counted)", () => {
    expect(usageBadge(2, 31)).toBe('2 templates · 31 probes');
    expect(usageBadge(0, 1)).toBe('1 probe');
    expect(usageBadge(3, undefined)).toBe('3 templates');
    expect(usageBadge(0, 0)).toBeUndefined();
  });

  test("the server's refusal to delete a template in use is told in counts, not as every name", () => {
    const names = Array.from({ length: 31 }, (_, i) => `probe "till-${i}"`);
    const detail = `Template "Point of sale" is used by: template "Kiosks", ${names.join(', ')}`;
    expect(summariseRefusal(detail)).toBe('Template "Point of sale" is still used by 1 template and 31 probes. Give them another template first.');
  });

  test('names holding quotes and commas are counted once', () => {
    expect(summariseRefusal('Template "A, "B"" is used by: probe "x, probe "y"", template "z"')).toBe('Template "A, "B"" is still used by 1 template and 1 probe. Give them another template first.');
  });

  test('any other message is kept as it is', () => {
    expect(summariseRefusal('Not found.')).toBe('Not found.');
  });
});
