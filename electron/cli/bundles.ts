/**
 * `outpost export FILE` and `outpost import FILE` (app.md §2, §5): a workspace to and from one JSON
 * bundle, as the Settings screen's buttons do. An import creates a new workspace, whole or not at all.
 */
import fs from 'node:fs';
import { importedAccountsText } from '../../shared/app/importedAccounts';
import { Store } from '../server/store/store';
import { replaceFile, withFile } from '../server/store/storageErrors';
import { BundleError, BundleSyntaxError, BundleUnnamedError, bundleText } from '../workspaces/bundle';
import { newTokenKey } from '../server/store/users';
import { defaultDataDir, prepareDataDir, readSettings } from '../workspaces/dataFolder';
import { WorkspaceError, importBundleInto } from '../workspaces/host';
import { openForReading } from '../workspaces/openWorkspace';
import { instanceFor, locateWorkspace, parseCommand, readNamedFile, startedDataDir } from './context';
import { line, ownWords, type Output } from './output';
import { COMMON_OPTIONS, defineCommand } from './usage';

export const EXPORT = defineCommand({
  name: 'export',
  args: 'FILE',
  positionals: 1,
  summary: 'Write a workspace to one JSON bundle (as Settings → Export does).',
  options: { ...COMMON_OPTIONS, force: { type: 'boolean', help: 'replace FILE if it exists' } },
});

export const IMPORT_BUNDLE = defineCommand({
  name: 'import',
  args: 'FILE',
  positionals: 1,
  summary: 'Create a new workspace from a bundle, whole or not at all.',
  options: { data: COMMON_OPTIONS.data, workspace: { ...COMMON_OPTIONS.workspace, help: "the new workspace's name (default: the one in the bundle)" } },
});

export async function exportCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommand(args, EXPORT);
  const file = positionals[0]!;
  if (fs.existsSync(file) && !values.force) throw new Error(`${file} exists already; give --force to replace it`);
  // Read without writing to the data folder: an export works where it is read-only (to another disk).
  const location = locateWorkspace({ ...values, data: startedDataDir(values.data) });
  const db = openForReading(location.file);
  let json: string;
  try {
    json = bundleText(new Store(db), location.workspace);
  } catch (error) {
    throw withFile(error, location.file);
  } finally {
    db.close();
  }
  replaceFile(file, json);
  out.line(line`workspace "${location.workspace}" exported to ${file}`);
  return 0;
}

export async function importBundleCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommand(args, IMPORT_BUNDLE);
  const file = positionals[0]!;
  const bytes = readNamedFile(file);
  // Parsed, checked and written on the bundle thread, into a database named only once all of it
  // succeeded (importBundleInto). No workspace is opened: it works in a folder with no default.
  const dataDir = prepareDataDir(values.data ?? defaultDataDir());
  const localToken = readSettings(dataDir).localToken;
  try {
    const { name, accounts } = await importBundleInto(dataDir, bytes, {
      instance: instanceFor('127.0.0.1'),
      // The data folder's admin token; a folder with none gets one at its first start.
      adminToken: typeof localToken === 'string' ? localToken : newTokenKey(),
      importing: new Set(),
      ...(values.workspace === undefined ? {} : { name: values.workspace }),
    });
    out.line(line`workspace "${name}" imported from ${file}`);
    out.line(ownWords(importedAccountsText(accounts)));
    return 0;
  } catch (error) {
    if (error instanceof BundleSyntaxError) throw new Error(`${file} is not valid JSON: ${error.reason}`);
    if (error instanceof BundleUnnamedError) throw new Error(`${file} does not name its workspace; give --workspace NAME`);
    if (error instanceof WorkspaceError || error instanceof BundleError) throw new Error(error.message);
    throw error;
  }
}
