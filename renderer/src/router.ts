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

// The table of every route the app shows lives in a module of its own, free of the DOM (tests read it).
export { matchRoute, ROUTES, type RoutePattern } from './routes';

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

/**
 * What stops a move away from the page shown (unsaved edits: stores/unsavedChanges.ts): whether
 * it would, and how to ask (running `proceed` if the user lets the move happen).
 */
export interface LeaveGuard {
  readonly blocks: () => boolean;
  readonly ask: (proceed: () => void) => void;
}

let guard: LeaveGuard | undefined;
/** The hash of the route shown: where a held move returns to. */
let accepted = typeof window === 'undefined' ? '' : window.location.hash;

function pathOf(hash: string): string {
  const text = hash.replace(/^#/, '');
  const q = text.indexOf('?');
  return q < 0 ? text : text.slice(0, q);
}

/** Only another path leaves the page; another query (a search, an ordering) keeps it. */
function leaves(to: string): boolean {
  return pathOf(to) !== pathOf(accepted);
}

/** A move allowed (nothing to lose, or the user chose to discard): its hash change is let through. */
function go(to: string, replace: boolean): void {
  accepted = to;
  if (replace) {
    history.replaceState(null, '', to);
    window.dispatchEvent(new HashChangeEvent('hashchange'));
  } else {
    window.location.hash = to.replace(/^#/, '');
  }
}

/**
 * Go to a route; `replace` keeps the history short while typing in a search box; `force` skips
 * the leave guard (after a create or a delete, when the form's changes are done with).
 */
export function navigate(to: string, options: { replace?: boolean; force?: boolean } = {}): void {
  const replace = options.replace === true;
  if (!options.force && guard && leaves(to) && guard.blocks()) {
    guard.ask(() => go(to, replace));
    return;
  }
  go(to, replace);
}

/** A click on an in-app link (`#/…`) is held before the browser changes the hash. */
function onLinkClick(event: MouseEvent): void {
  if (!guard || event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
  const link = event.target instanceof Element ? event.target.closest('a[href^="#/"]') : null;
  const to = link?.getAttribute('href');
  if (!to || !leaves(to) || !guard.blocks()) return;
  event.preventDefault();
  guard.ask(() => go(to, false));
}

/** Install the guard of every way out of the page (one at a time; `undefined` removes it). */
export function setLeaveGuard(next: LeaveGuard | undefined): void {
  if (next && !guard) document.addEventListener('click', onLinkClick, true);
  if (!next && guard) document.removeEventListener('click', onLinkClick, true);
  guard = next;
}

const listeners = new Set<() => void>();

/**
 * Every hash change (links, back and forward, a typed address) passes here before the screens
 * hear of it: a held one is undone in place and asked about.
 */
function onHashChange(): void {
  const hash = window.location.hash;
  if (guard && leaves(hash) && guard.blocks()) {
    history.replaceState(null, '', accepted || window.location.pathname + window.location.search);
    guard.ask(() => go(hash, false));
    return;
  }
  accepted = hash;
  for (const listener of listeners) listener();
}

let cached: { hash: string; route: Route } | undefined;

function current(): Route {
  const hash = window.location.hash;
  if (!cached || cached.hash !== hash) cached = { hash, route: parseHash(hash) };
  return cached.route;
}

function subscribe(listener: () => void): () => void {
  if (listeners.size === 0) window.addEventListener('hashchange', onHashChange);
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0) window.removeEventListener('hashchange', onHashChange);
  };
}

export function useRoute(): Route {
  return useSyncExternalStore(subscribe, current);
}
