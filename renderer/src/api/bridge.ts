/**
 * The bridge (shared/app/bridge.ts): Electron's `window.outpost` when the preload script put it
 * there, else a browser implementation over /app/ and the DOM.
 */
import type { OutpostBridge, ServerStatus } from '../../../shared/app/bridge';
import { safeFileName } from '../../../shared/app/bridge';
import { startPolling } from '../stores/poll';
import { appCall } from './client';

declare global {
  interface Window {
    readonly outpost?: OutpostBridge;
  }
}

/** How often a browser asks whether the server answers (the desktop app is told by its supervisor). */
const SERVER_POLL_MS = 5000;

const browserBridge: OutpostBridge = {
  kind: 'browser',
  async serverStatus(): Promise<ServerStatus> {
    try {
      await appCall('status');
      return { state: 'running', restarts: 0 };
    } catch {
      return { state: 'failed', message: 'The Outpost server does not answer.', restarts: 0 };
    }
  },
  onServerStatus(listener) {
    let last: ServerStatus['state'] | undefined;
    const poll = async () => {
      const status = await browserBridge.serverStatus();
      if (status.state !== last) listener(status);
      last = status.state;
    };
    const poller = startPolling(poll, () => SERVER_POLL_MS, SERVER_POLL_MS);
    return () => poller.stop();
  },
  async openOnCentral(ip) {
    const link = await appCall('centralLink', { query: { ip } });
    if (!link.url) return false;
    window.open(link.url, '_blank', 'noopener,noreferrer');
    return true;
  },
  async saveFile(suggestedName, content) {
    const url = URL.createObjectURL(new Blob([content], { type: 'application/json' }));
    const anchor = document.createElement('a');
    anchor.href = url;
    anchor.download = safeFileName(suggestedName);
    anchor.click();
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
    return true;
  },
  // A browser has no access to the file system: the Hosts screen uploads the chosen file itself.
  async importEveLog() {
    return { outcome: 'failed', message: 'Choose the file with the file picker: a browser uploads it itself.' };
  },
  async cancelEveImport() {},
};

export const bridge: OutpostBridge = window.outpost ?? browserBridge;
