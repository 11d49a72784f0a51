/**
 * The layout tells the architecture (docs/architecture.md, "Layers"): every source file belongs
 * to one layer by its path, and imports only from its own layer or the ones below it. shared/
 * runs in the renderer as well as in Node; the server, the sync engine, the workspaces, the
 * app's wiring and the CLI run under plain Node; SQL lives in the store alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, sourceFiles } from './helpers/sourceFiles';


/**
 * The layers, lowest first. A path names a folder (everything under it) or one file; a file
 * belongs to the longest path that contains it. A file may import from its own layer and from
 * any layer listed before it, never from one listed after.
 */
const LAYERS: readonly { readonly name: string; readonly paths: readonly string[] }[] = [
  { name: 'shared: types and pure logic', paths: ['shared'] },
  { name: 'store: SQL and repositories', paths: ['electron/server/store'] },
  { name: 'http: transport', paths: ['electron/server/http'] },
  { name: 'routing: DRF order of checks', paths: ['electron/server/routing'] },
  { name: 'handlers: endpoints', paths: ['electron/server/handlers'] },
  { name: 'views: browsable API and pages', paths: ['electron/server/views'] },
  { name: 'api: the assembled server', paths: ['electron/server/api.ts'] },
  { name: 'remote: central server client and sync', paths: ['electron/remote'] },
  { name: 'workspaces: data folder and open workspace', paths: ['electron/workspaces'] },
  { name: 'app: /app/ routes and the app handler', paths: ['electron/app'] },
  { name: 'cli', paths: ['electron/cli'] },
  { name: 'electron main, preload and server process', paths: ['electron/main', 'electron/preload', 'electron/serverProcess.ts'] },
];

/** The renderer stands beside the Node layers: it reaches them only over HTTP and IPC. */
const RENDERER = 'renderer/src';

function importsOf(file: string): string[] {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  return [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/g), ...text.matchAll(/import\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]!);
}

/** The project file an import names (undefined for a package), without extension. */
function resolved(file: string, target: string): string | undefined {
  if (!target.startsWith('.')) return undefined;
  return path.relative(ROOT, path.resolve(path.dirname(path.join(ROOT, file)), target));
}

function contains(scope: string, file: string): boolean {
  const bare = file.replace(/\.tsx?$/, '');
  const scopeBare = scope.replace(/\.tsx?$/, '');
  return bare === scopeBare || file.startsWith(`${scope}/`);
}

/** The index of the layer a file belongs to (the longest matching path), or undefined. */
function layerOf(file: string): number | undefined {
  let best: { index: number; length: number } | undefined;
  LAYERS.forEach((layer, index) => {
    for (const scope of layer.paths) {
      if (contains(scope, file) && (!best || scope.length > best.length)) best = { index, length: scope.length };
    }
  });
  return best?.index;
}

/** Every import of `files` that goes up the layer table, as `file → target (layer → layer)`. */
function violations(files: readonly string[]): string[] {
  const out: string[] = [];
  for (const file of files) {
    const from = layerOf(file);
    if (from === undefined) continue;
    for (const target of importsOf(file)) {
      const to = resolved(file, target);
      if (to === undefined || !/^(electron|shared|renderer)\//.test(to)) continue;
      const toLayer = layerOf(to);
      if (toLayer === undefined) out.push(`${file} imports ${target}, which is in no layer`);
      else if (toLayer > from) out.push(`${file} imports ${target} (${LAYERS[from]!.name} → ${LAYERS[toLayer]!.name})`);
    }
  }
  return out;
}

const NODE_SOURCES = ['electron', 'shared'].flatMap((dir) => sourceFiles(dir));

/** The one CLI module that may write to the terminal: it shows data with its control characters made visible. */
const CLI_OUTPUT = 'electron/cli/output.ts';

/** CLI modules (other than CLI_OUTPUT) that write to stdout or stderr themselves. */
function directWriters(files: readonly string[]): string[] {
  return files.filter((file) => file !== CLI_OUTPUT && /\bprocess\.(stdout|stderr)\b|\bconsole\./.test(fs.readFileSync(path.join(ROOT, file), 'utf8')));
}

const STORE = 'electron/server/store';

/**
 * The files of the store that use the SQLite connection itself, each for its reason. Every other
 * file of the store goes through store.ts (query(), command(), exec() inside a write, write(),
 * inSnapshot()), where each statement is prepared once, named, timed and logged when slow.
 */
const RAW_CONNECTION: Readonly<Record<string, string>> = {
  [`${STORE}/store.ts`]: 'the store itself: it prepares, names and times every statement',
  [`${STORE}/database.ts`]: 'opens the connection (its pragmas) and runs the migrations, before any store exists over it',
  [`${STORE}/migrations`]: "a migration's code runs on the bare connection, inside database.ts's migration transaction, before any store exists",
};

/**
 * The calls of `file` on a connection rather than the store: `.prepare(`, `.pragma(` and
 * `.transaction(` anywhere; `.exec(` unless on the store (`store.exec`, only inside a write) or on
 * a regular expression (a literal, or a constant named in capitals).
 */
function connectionCalls(file: string): string[] {
  const found: string[] = [];
  fs.readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .forEach((line, index) => {
      for (const match of line.matchAll(/\.(prepare|pragma|transaction|exec)\(/g)) {
        const receiver = line.slice(0, match.index);
        if (match[1] === 'exec' && /(?:\bstore|\/[dgimsuvy]*|\b[A-Z][A-Z0-9_]*)$/.test(receiver)) continue;
        found.push(`${file}:${index + 1} calls .${match[1]}( on the connection`);
      }
    });
  return found;
}

function usesConnection(files: readonly string[]): string[] {
  return files.filter((file) => !Object.keys(RAW_CONNECTION).some((allowed) => contains(allowed, file))).flatMap(connectionCalls);
}

describe('layering', () => {
  test('every source file of electron/ and shared/ belongs to a layer', () => {
    expect(NODE_SOURCES.filter((file) => layerOf(file) === undefined)).toEqual([]);
  });

  test('no import goes up the layer table', () => {
    expect(violations(NODE_SOURCES)).toEqual([]);
  });

  test('the check finds an import that goes up (a store module importing the router)', () => {
    const probe = path.join(ROOT, 'electron/server/store/__layering_probe__.ts');
    fs.writeFileSync(probe, "import { createRouter } from '../routing/router';\nexport const probe = createRouter;\n");
    try {
      expect(violations(['electron/server/store/__layering_probe__.ts'])).toEqual([
        "electron/server/store/__layering_probe__.ts imports ../routing/router (store: SQL and repositories → routing: DRF order of checks)",
      ]);
    } finally {
      fs.rmSync(probe);
    }
  });

  test('the CLI writes to the terminal through cli/output.ts alone (issue 23 §4: no command prints data raw)', () => {
    expect(directWriters(sourceFiles('electron/cli'))).toEqual([]);
  });

  test('the check finds a CLI module that writes to stderr itself', () => {
    const probe = path.join(ROOT, 'electron/cli/__output_probe__.ts');
    fs.writeFileSync(probe, "export const probe = (name: string) => process.stderr.write(`${name}\\n`);\n");
    try {
      expect(directWriters(['electron/cli/__output_probe__.ts', CLI_OUTPUT])).toEqual(['electron/cli/__output_probe__.ts']);
    } finally {
      fs.rmSync(probe);
    }
  });

  test('shared/ imports only shared/ (no Node, DOM, Electron or packages)', () => {
    for (const file of sourceFiles('shared')) {
      for (const target of importsOf(file)) {
        const to = resolved(file, target);
        expect(to?.startsWith('shared/'), `${file} imports ${target}`).toBe(true);
      }
    }
  });

  test('the renderer imports only the renderer, shared/ and packages', () => {
    for (const file of sourceFiles(RENDERER)) {
      for (const target of importsOf(file)) {
        const to = resolved(file, target);
        if (to === undefined) continue;
        expect(to.startsWith('renderer/') || to.startsWith('shared/'), `${file} imports ${target}`).toBe(true);
      }
    }
  });

  test('only the Electron main process and preload import electron', () => {
    for (const file of NODE_SOURCES) {
      if (file.startsWith('electron/main/') || file.startsWith('electron/preload/')) continue;
      for (const target of importsOf(file)) expect(target, `${file} imports ${target}`).not.toMatch(/^electron(\/|$)/);
    }
  });

  test('within the store, every statement goes through store.ts (its other files call no prepare or exec on the connection)', () => {
    expect(usesConnection(NODE_SOURCES.filter((file) => file.startsWith(`${STORE}/`)))).toEqual([]);
  });

  test('the check finds a statement prepared or run beside the store, and lets the store and regular expressions be', () => {
    const probe = `${STORE}/__sql_probe__.ts`;
    fs.writeFileSync(
      path.join(ROOT, probe),
      [
        "export const a = (db: any) => db.prepare('SELECT 1').get();",
        "export const b = (store: any) => store.db.exec('BEGIN');",
        "export const c = (store: any) => store.exec('DROP TABLE t');",
        'export const d = (sql: string) => /^CREATE TABLE/i.exec(sql);',
        'export const e = (sql: string, NAME: RegExp) => NAME.exec(sql);',
        "export const f = (db: any) => db.pragma('foreign_keys');",
      ].join('\n') + '\n',
    );
    try {
      expect(usesConnection([probe])).toEqual([
        `${probe}:1 calls .prepare( on the connection`,
        `${probe}:2 calls .exec( on the connection`,
        `${probe}:6 calls .pragma( on the connection`,
      ]);
    } finally {
      fs.rmSync(path.join(ROOT, probe));
    }
  });

  test('SQL lives in the store: no statement is prepared, and better-sqlite3 is not imported, anywhere else', () => {
    const outside = NODE_SOURCES.filter((file) => !file.startsWith('electron/server/store/'));
    const found: string[] = [];
    for (const file of outside) {
      const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
      if (/\.prepare\(|\.pragma\(/.test(text)) found.push(`${file} prepares SQL`);
      if (importsOf(file).includes('better-sqlite3')) found.push(`${file} imports better-sqlite3`);
    }
    expect(found).toEqual([]);
  });
});
