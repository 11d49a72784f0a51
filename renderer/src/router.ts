/**
 * Routes live in the URL's hash (`#/probes?search=lyon&ordering=-updated`), so that list
 * parameters survive reloads and the same build works from app:// and from a plain server.
 */
import { useSyncExternalStore } from 'react';

export interface Route {
  /** Path segments: `#/probes/vendor/12` → ['probes', 'vendor', '12']. */
  readonly segments: readonly string[];
  readonly query: URLSearchParams;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#/, '');
  const q = text.indexOf('?');
  const path = q < 0 ? text : text.slice(0, q);
  return {
    segments: path.split('/').filter((s) => s !== '').map(decodeURIComponent),
    query: new URLSearchParams(q < 0 ? '' : text.slice(q + 1)),
  };
}

export function href(path: string, query: Readonly<Record<string, string | undefined>> = {}): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(key, value);
  const text = params.toString();
  return `#${path}${text ? `?${text}` : ''}`;
}

/** Go to a route; `replace` keeps the history short while typing in a search box. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) {
    history.replaceState(null, '', to);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = to.replace(/^#/, '');
  }
}

let cached: { hash: string; route: Route } | undefined;

function current(): Route {
  const hash = window.location.hash;
  if (!cached || cached.hash !== hash) cached = { hash, route: parseHash(hash) };
  return cached.route;
}

function subscribe(listener: () => void): () => void {
  window.addEventListener('hashchange', listener);
  return () => window.removeEventListener('hashchange', listener);
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}
