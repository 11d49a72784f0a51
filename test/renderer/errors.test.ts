/** What the renderer's reads throw (renderer/src/data/errors.ts). */
import { describe, expect, test } from 'vitest';
import { asError, isAbortError } from '../../renderer/src/data/errors';

/** Stands for the client's ApiFailure (its module needs the DOM's types). */
class Failure extends Error {
  readonly status = 404;
}

describe('errors of a read', () => {
  test('an abort is told apart from a failure', () => {
    expect(isAbortError(new DOMException('The operation was aborted.', 'AbortError'))).toBe(true);
    expect(isAbortError(new DOMException('Timed out.', 'TimeoutError'))).toBe(false);
    expect(isAbortError(new Failure('The local server did not answer; it may be restarting.'))).toBe(false);
  });

  test('anything thrown becomes an Error with a message; an Error stays itself (an ApiFailure keeps its status)', () => {
    const failure = new Failure('Not found.');
    expect(asError(failure)).toBe(failure);
    expect(asError('offline')).toEqual(new Error('offline'));
  });
});
