/**
 * The renderer's few needs that HTTP cannot meet (app.md §1), as one typed service. In Electron
 * the preload script exposes it as `window.outpost` (IPC to the main process); in a browser the
 * renderer implements it over the embedded server's /app/ endpoints and the DOM.
 */

export type ServerState = 'starting' | 'running' | 'restarting' | 'failed';

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
}

/** IPC channels between the preload script and the main process, one per bridge call. */
export const IPC = {
  serverStatus: 'outpost:server-status',
  serverStatusChanged: 'outpost:server-status-changed',
  openOnCentral: 'outpost:open-on-central',
  saveFile: 'outpost:save-file',
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
