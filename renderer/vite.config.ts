import path from 'node:path';
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = path.dirname(fileURLToPath(import.meta.url));

// The renderer's build: dist/renderer, served at / by `outpost serve` and from app:// in Electron.
export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  build: {
    outDir: path.resolve(here, '../dist/renderer'),
    emptyOutDir: true,
    // No inline preload script: the Content-Security-Policy allows scripts from the app only.
    modulePreload: { polyfill: false },
    sourcemap: true,
    chunkSizeWarningLimit: 1500,
  },
  server: { fs: { allow: [path.resolve(here, '..')] } },
});
