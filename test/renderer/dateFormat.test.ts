/** Dates in the user's form with the exact UTC value (renderer/src/components/dateFormat.ts). */
import { describe, expect, test } from 'vitest';
import { dateView, exactUtc, parseInstant } from '../../renderer/src/components/dateFormat';

describe('dates', () => {
  test('every timestamp form of the API is read as the same instant', () => {
    const z = parseInstant('2023-07-11T16:07:33.559720Z')!;
    expect(parseInstant('2023-07-11T16:07:33.559720+00:00')!.epochMs).toBe(z.epochMs);
    expect(parseInstant('2023-07-11T18:07:33.559720+0200')!.epochMs).toBe(z.epochMs);
    expect(parseInstant('yesterday')).toBeUndefined();
  });

  test('the exact UTC value keeps the fraction of a second as written', () => {
    expect(exactUtc(parseInstant('2023-07-11T18:07:33.559720+02:00')!)).toBe('2023-07-11 16:07:33.559720 UTC');
    expect(exactUtc(parseInstant('2026-11-21T09:14:03Z')!)).toBe('2026-11-21 09:14:03 UTC');
  });

  test('shown in the user’s locale and time zone', () => {
    const us = dateView('2023-07-11T16:07:33.559720Z', { locale: 'en-US', timeZone: 'America/New_York' })!;
    expect(us.text).toBe('Jul 11, 2023, 12:07 PM');
    expect(us.exact).toBe('2023-07-11 16:07:33.559720 UTC');
    expect(us.iso).toBe('2023-07-11T16:07:33.000Z');
    const fr = dateView('2023-07-11T16:07:33Z', { locale: 'fr-FR', timeZone: 'Europe/Paris' })!;
    expect(fr.text).toBe('11 juil. 2023, 18:07');
    expect(dateView('2023-07-11T16:07:33Z', { locale: 'en-GB', timeZone: 'UTC', dateOnly: true })!.text).toBe('11 Jul 2023');
    expect(dateView('not a date')).toBeUndefined();
  });
});
