/**
 * The preload script (bundled as dist/electron/preload.cjs; sandboxed, so one self-contained
 * CommonJS file that requires nothing but Electron). It exposes the bridge as `window.outpost`.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { createBridge } from './bridge';

contextBridge.exposeInMainWorld('outpost', createBridge(ipcRenderer));
