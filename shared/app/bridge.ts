/**
 * The renderer's few needs that HTTP cannot meet (app.md §1), as one typed service. In Electron
 * the preload script exposes it as `window.outpost` (IPC to the main process); in a browser the
 * renderer implements it over the embedded server's /app/ endpoints and the DOM.
 */

import type { JsonValue } from '../resources/fields';

export type ServerState = 'starting' | 'running' | 'restarting' | 'failed';

/** What became of an EVE log imported through the system's file dialog (the desktop app). */
export type EveLogImport =
  | { readonly outcome: 'cancelled' }
  | { readonly outcome: 'done'; readonly summary: JsonValue }
  | { readonly outcome: 'failed'; readonly message: string };

export interface ServerStatus {
  readonly state: ServerState;
  /** What the user should know (a restart and why, a failure). */
  readonly message?: string;
  readonly restarts: number;
}

export interface OutpostBridge {
  readonly kind: 'electron' | 'browser';
  /** The local server's state, as its supervisor sees it. */
  serverStatus(): Promise<ServerStatus>;
  /** Be told when that state changes; returns the unsubscribe function. */
  onServerStatus(listener: (status: ServerStatus) => void): () => void;
  /** Open the central server's host view of an address in the system browser (bound workspaces). */
  openOnCentral(ip: string): Promise<boolean>;
  /** Save text to a file the user picks; false when cancelled. */
  saveFile(suggestedName: string, content: string): Promise<boolean>;
  /**
   * Import an EVE log the user picks in the system's dialog, streamed from disk to the server by
   * the main process (the desktop app; a browser uploads the file itself).
   */
  importEveLog(): Promise<EveLogImport>;
  /** Stop the EVE import under way: nothing of it is imported. */
  cancelEveImport(): Promise<void>;
}

/** IPC channels between the preload script and the main process, one per bridge call. */
export const IPC = {
  serverStatus: 'outpost:server-status',
  serverStatusChanged: 'outpost:server-status-changed',
  openOnCentral: 'outpost:open-on-central',
  saveFile: 'outpost:save-file',
  importEveLog: 'outpost:import-eve-log',
  cancelEveImport: 'outpost:cancel-eve-import',
} as const;

/** A file name offered for a download: no path, no control characters, not empty. */
export function safeFileName(name: string): string {
  const cleaned = name.replace(/[\\/:*?"<>|\u0000-\u001f]/g, '_').replace(/^\.+/, '').slice(0, 120);
  return cleaned || 'outpost.json';
}

/** An address as the host view takes it: an IPv4 or IPv6 literal only. */
export function isIpLiteral(text: string): boolean {
  return /^[0-9a-fA-F:.]{2,45}$/.test(text) && (text.includes('.') || text.includes(':'));
}
