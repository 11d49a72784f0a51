/**
 * A remote's token belongs to the origin it was given for (the hardening issue): the server
 * drops it when a remote's scheme, host or port change, and the Settings screen says so before
 * saving. One rule for both.
 */

/** WHATWG URL, global in Node and in the browser alike (shared/ is compiled with neither's types). */
declare const URL: new (input: string) => { readonly origin: string };

/** Same scheme, host and port (a path change keeps the origin, and so the token). */
export function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}
