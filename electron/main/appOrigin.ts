/**
 * The app's one origin, `app://outpost` (app.md §1): the window loads it, the protocol serves it,
 * and navigation, IPC and forwarding to the server are allowed for it only.
 */

export const APP_SCHEME = 'app';
export const APP_HOST = 'outpost';
export const APP_ORIGIN = `${APP_SCHEME}://${APP_HOST}`;
export const APP_INDEX_URL = `${APP_ORIGIN}/index.html`;

/**
 * Whether `url` is on the app's origin. Compared by parts: Node's URL gives custom schemes an
 * opaque origin ("null"), and credentials or a port would make it another origin in Chromium.
 */
export function isAppUrl(url: string): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  return parsed.protocol === `${APP_SCHEME}:` && parsed.hostname === APP_HOST && parsed.port === '' && parsed.username === '' && parsed.password === '';
}
