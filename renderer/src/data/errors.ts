/** What the renderer's reads throw, read once for every screen and store. */

/** A request given up on purpose (unmount, newer parameters, a cancelled upload): not a failure. */
export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** Anything thrown, as an Error a screen can show (`.message`) and keep (an ApiFailure stays one). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
