/**
 * The main process's side of the preload bridge (shared/app/bridge.ts): one `ipcMain.handle` per
 * bridge call. Each checks that the caller is the app's own top-level page and that its
 * arguments have the expected types and sizes before doing anything; a refused call rejects.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { IPC, type EveLogImport, type ServerStatus } from '../../shared/app/bridge';
import { isTrustedSender } from './security';

/** What the bridge calls do, once the caller and the arguments are checked. */
export interface BridgeService {
  serverStatus(): ServerStatus;
  openOnCentral(ip: string): Promise<boolean>;
  /** `sender` is the calling page: the dialog is modal to its window. */
  saveFile(sender: WebContents, suggestedName: string, content: string): Promise<boolean>;
  /** `sender` is the calling page: the dialog is modal to its window. */
  importEveLog(sender: WebContents): Promise<EveLogImport>;
  cancelEveImport(): void;
}

export class IpcRefused extends Error {}

export interface BridgeLimits {
  /** An exported workspace is some MB; far larger is a mistake, not a file to write. */
  readonly savedChars: number;
  readonly nameChars: number;
  readonly ipChars: number;
}

export const BRIDGE_LIMITS: BridgeLimits = { savedChars: 256 * 1024 * 1024, nameChars: 255, ipChars: 64 };

type Checked<A extends unknown[]> = (args: readonly unknown[]) => A | undefined;

const noArguments: Checked<[]> = (args) => (args.length === 0 ? [] : undefined);

const oneIp =
  (limits: BridgeLimits): Checked<[string]> =>
  ([ip, ...rest]) =>
    rest.length === 0 && typeof ip === 'string' && ip.length > 0 && ip.length <= limits.ipChars ? [ip] : undefined;

const nameAndContent =
  (limits: BridgeLimits): Checked<[string, string]> =>
  ([name, content, ...rest]) =>
    rest.length === 0 && typeof name === 'string' && name.length <= limits.nameChars && typeof content === 'string' && content.length <= limits.savedChars
      ? [name, content]
      : undefined;

type Event = Pick<IpcMainInvokeEvent, 'senderFrame' | 'sender'>;

function handleChecked<A extends unknown[], R>(
  ipcMain: Pick<IpcMain, 'handle'>,
  channel: string,
  check: Checked<A>,
  handler: (event: Event, ...args: A) => R | Promise<R>,
): void {
  ipcMain.handle(channel, (event: Event, ...raw: unknown[]) => {
    if (!isTrustedSender(event.senderFrame)) throw new IpcRefused(`${channel}: refused, the caller is not the Outpost app`);
    const args = check(raw);
    if (!args) throw new IpcRefused(`${channel}: invalid arguments`);
    return handler(event, ...args);
  });
}

export function registerBridgeIpc(ipcMain: Pick<IpcMain, 'handle'>, service: BridgeService, limits: BridgeLimits = BRIDGE_LIMITS): void {
  handleChecked(ipcMain, IPC.serverStatus, noArguments, () => service.serverStatus());
  handleChecked(ipcMain, IPC.openOnCentral, oneIp(limits), (_event, ip) => service.openOnCentral(ip));
  handleChecked(ipcMain, IPC.saveFile, nameAndContent(limits), (event, name, content) => service.saveFile(event.sender, name, content));
  handleChecked(ipcMain, IPC.importEveLog, noArguments, (event) => service.importEveLog(event.sender));
  handleChecked(ipcMain, IPC.cancelEveImport, noArguments, () => service.cancelEveImport());
}
