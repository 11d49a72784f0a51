/**
 * The preload bridge end to end over a fake IPC: the page's calls (preload side) reach the main
 * process's handlers only from the app's own page and with valid arguments.
 */
import type { IpcMain, IpcRenderer, WebContents } from 'electron';
import { describe, expect, test } from 'vitest';
import { IPC, type ServerStatus } from '../../shared/app/bridge';
import { BRIDGE_LIMITS, IpcRefused, registerBridgeIpc, type BridgeLimits, type BridgeService } from '../../electron/main/bridgeIpc';
import { createBridge } from '../../electron/preload/bridge';

type Handler = (event: unknown, ...args: unknown[]) => unknown;

const APP_FRAME = { url: 'app://outpost/index.html#/hosts', parent: null };

function mainSide(limits: BridgeLimits = BRIDGE_LIMITS) {
  const handlers = new Map<string, Handler>();
  const calls: [string, ...unknown[]][] = [];
  const sender = { id: 7 } as unknown as WebContents;
  const service: BridgeService = {
    serverStatus: () => (calls.push(['serverStatus']), { state: 'running', restarts: 2 }),
    openOnCentral: async (ip) => (calls.push(['openOnCentral', ip]), true),
    saveFile: async (from, name, content) => (calls.push(['saveFile', from, name, content]), true),
    importEveLog: async (from) => (calls.push(['importEveLog', from]), { outcome: 'cancelled' }),
    cancelEveImport: () => void calls.push(['cancelEveImport']),
  };
  registerBridgeIpc({ handle: (channel: string, handler: Handler) => handlers.set(channel, handler) } as unknown as Pick<IpcMain, 'handle'>, service, limits);
  const invoke = async (channel: string, frame: unknown, ...args: unknown[]) => {
    const handler = handlers.get(channel);
    if (!handler) throw new Error(`no handler for ${channel}`);
    return handler({ senderFrame: frame, sender }, ...args);
  };
  return { handlers, calls, invoke, sender };
}

describe('IPC handlers in the main process', () => {
  test('one handler per bridge call, on the channels of the contract', () => {
    const { handlers } = mainSide();
    expect([...handlers.keys()].sort()).toEqual([IPC.openOnCentral, IPC.saveFile, IPC.serverStatus, IPC.importEveLog, IPC.cancelEveImport].sort());
  });

  test.each([
    ['a web page', { url: 'https://example.com/', parent: null }],
    ['a frame inside the app', { url: 'app://outpost/index.html', parent: { url: 'app://outpost/index.html' } }],
    ['another app:// host', { url: 'app://evil/index.html', parent: null }],
    ['a destroyed frame', null],
  ])('a call from %s is refused and does nothing', async (_name, frame) => {
    const { invoke, calls } = mainSide();
    await expect(invoke(IPC.serverStatus, frame)).rejects.toThrow(IpcRefused);
    await expect(invoke(IPC.openOnCentral, frame, '10.0.0.1')).rejects.toThrow(/not the Outpost app/);
    await expect(invoke(IPC.saveFile, frame, 'a.json', '{}')).rejects.toThrow(IpcRefused);
    await expect(invoke(IPC.importEveLog, frame)).rejects.toThrow(IpcRefused);
    await expect(invoke(IPC.cancelEveImport, frame)).rejects.toThrow(IpcRefused);
    expect(calls).toEqual([]);
  });

  test('calls from the app reach the service with their arguments', async () => {
    const { invoke, calls, sender } = mainSide();
    expect(await invoke(IPC.serverStatus, APP_FRAME)).toEqual({ state: 'running', restarts: 2 });
    expect(await invoke(IPC.openOnCentral, APP_FRAME, '10.0.0.1')).toBe(true);
    expect(await invoke(IPC.saveFile, APP_FRAME, 'lyon.outpost.json', '{"a":1}')).toBe(true);
    expect(await invoke(IPC.importEveLog, APP_FRAME)).toEqual({ outcome: 'cancelled' });
    await invoke(IPC.cancelEveImport, APP_FRAME);
    expect(calls).toEqual([['serverStatus'], ['openOnCentral', '10.0.0.1'], ['saveFile', sender, 'lyon.outpost.json', '{"a":1}'], ['importEveLog', sender], ['cancelEveImport']]);
  });

  test.each([
    [IPC.serverStatus, ['extra']],
    [IPC.openOnCentral, []],
    [IPC.openOnCentral, [167772161]],
    [IPC.openOnCentral, ['']],
    [IPC.openOnCentral, ['1'.repeat(65)]],
    [IPC.openOnCentral, ['10.0.0.1', 'extra']],
    [IPC.saveFile, ['a.json']],
    [IPC.saveFile, [{ name: 'a.json' }, '{}']],
    [IPC.saveFile, ['a.json', { toString: () => '{}' }]],
    [IPC.saveFile, ['x'.repeat(256), '{}']],
    [IPC.saveFile, ['a.json', '{}', 'extra']],
  ])('%s with arguments %j is refused', async (channel, args) => {
    const { invoke, calls } = mainSide();
    await expect(invoke(channel, APP_FRAME, ...args)).rejects.toThrow(/invalid arguments/);
    expect(calls).toEqual([]);
  });

  test('content larger than the limit is refused (256 MiB in the app)', async () => {
    expect(BRIDGE_LIMITS.savedChars).toBe(256 * 1024 * 1024);
    const { invoke, calls } = mainSide({ ...BRIDGE_LIMITS, savedChars: 10 });
    expect(await invoke(IPC.saveFile, APP_FRAME, 'a.json', '0123456789')).toBe(true);
    await expect(invoke(IPC.saveFile, APP_FRAME, 'a.json', '0123456789X')).rejects.toThrow(/invalid arguments/);
    expect(calls).toHaveLength(1);
  });
});

describe('the preload bridge', () => {
  function rendererSide() {
    const main = mainSide();
    const listeners = new Map<string, Set<(...args: unknown[]) => void>>();
    const ipc = {
      invoke: (channel: string, ...args: unknown[]) => main.invoke(channel, APP_FRAME, ...args),
      on(channel: string, listener: (...args: unknown[]) => void) {
        if (!listeners.has(channel)) listeners.set(channel, new Set());
        listeners.get(channel)!.add(listener);
        return ipc;
      },
      removeListener(channel: string, listener: (...args: unknown[]) => void) {
        listeners.get(channel)?.delete(listener);
        return ipc;
      },
    };
    const bridge = createBridge(ipc as unknown as Pick<IpcRenderer, 'invoke' | 'on' | 'removeListener'>);
    const push = (channel: string, status: ServerStatus) => listeners.get(channel)?.forEach((l) => l({ sender: 'ipcRenderer itself' }, status));
    return { bridge, main, push, listeners };
  }

  test('exposes the task-level calls of the contract, and nothing else', () => {
    const { bridge } = rendererSide();
    expect(Object.keys(bridge).sort()).toEqual(['cancelEveImport', 'importEveLog', 'kind', 'onServerStatus', 'openOnCentral', 'saveFile', 'serverStatus']);
    expect(bridge.kind).toBe('electron');
    expect(Object.isFrozen(bridge)).toBe(true);
  });

  test('its calls reach the main process handlers', async () => {
    const { bridge, main } = rendererSide();
    expect(await bridge.serverStatus()).toEqual({ state: 'running', restarts: 2 });
    expect(await bridge.openOnCentral('2001:db8::1')).toBe(true);
    expect(await bridge.saveFile('export.json', '[]')).toBe(true);
    expect(main.calls.map((c) => c[0])).toEqual(['serverStatus', 'openOnCentral', 'saveFile']);
  });

  test('status pushes reach the listener without the IPC event, until unsubscribed', () => {
    const { bridge, push, listeners } = rendererSide();
    const seen: unknown[][] = [];
    const unsubscribe = bridge.onServerStatus((...args) => seen.push(args));
    push(IPC.serverStatusChanged, { state: 'restarting', message: 'why', restarts: 1 });
    expect(seen).toEqual([[{ state: 'restarting', message: 'why', restarts: 1 }]]);
    unsubscribe();
    push(IPC.serverStatusChanged, { state: 'running', restarts: 1 });
    expect(seen).toHaveLength(1);
    expect(listeners.get(IPC.serverStatusChanged)?.size).toBe(0);
  });
});
