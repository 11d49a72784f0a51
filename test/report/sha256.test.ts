/** The report's own SHA-256 (shared/text/sha256.ts) against node:crypto's, on texts of every padding length. */
import crypto from 'node:crypto';
import { expect, test } from 'vitest';
import { base64, sha256 } from '../../shared/text/sha256';

test('equals node:crypto on texts of 0 to 200 characters, ASCII and not', () => {
  for (let n = 0; n <= 200; n++) {
    for (const text of ['a'.repeat(n), 'é😀'.repeat(n).slice(0, n)]) {
      expect(base64(sha256(text))).toBe(crypto.createHash('sha256').update(text, 'utf8').digest('base64'));
    }
  }
});

test('base64 pads as the standard says', () => {
  for (const bytes of [[], [1], [1, 2], [1, 2, 3], [255, 254, 253, 252]]) expect(base64(Uint8Array.from(bytes))).toBe(Buffer.from(bytes).toString('base64'));
});
