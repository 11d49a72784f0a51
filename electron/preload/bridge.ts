/**
 * The preload's half of the bridge (shared/app/bridge.ts): the few task-level calls the page may
 * make, each over its own IPC channel. The page gets these functions only — never ipcRenderer,
 * never an event object (whose `sender` would hand it the IPC).
 */
import type { IpcRenderer, IpcRendererEvent } from 'electron';
import { IPC, type EveLogImport, type OutpostBridge, type ServerStatus } from '../../shared/app/bridge';

export function createBridge(ipc: Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>): OutpostBridge {
  return Object.freeze({
    kind: 'electron' as const,
    serverStatus: (): Promise<ServerStatus> => ipc.invoke(IPC.serverStatus) as Promise<ServerStatus>,
    onServerStatus(listener: (status: ServerStatus) => void): () => void {
      const relay = (_event: IpcRendererEvent, status: ServerStatus) => listener(status);
      ipc.on(IPC.serverStatusChanged, relay);
      return () => void ipc.removeListener(IPC.serverStatusChanged, relay);
    },
    openOnCentral: (ip: string): Promise<boolean> => ipc.invoke(IPC.openOnCentral, String(ip)) as Promise<boolean>,
    saveFile: (suggestedName: string, content: string): Promise<boolean> => ipc.invoke(IPC.saveFile, String(suggestedName), String(content)) as Promise<boolean>,
    importEveLog: (): Promise<EveLogImport> => ipc.invoke(IPC.importEveLog) as Promise<EveLogImport>,
    cancelEveImport: (): Promise<void> => ipc.invoke(IPC.cancelEveImport) as Promise<void>,
  });
}
