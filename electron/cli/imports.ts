/** `outpost import-hosts FILE` and `outpost import-threats FILE`: the import/ endpoints, offline. */
import { ApiError } from '../../shared/api/errors';
import { hostImport } from '../server/handlers/hosts';
import { importEntries } from '../server/handlers/imports';
import { threatImport } from '../server/handlers/threats';
import { withFile } from '../server/store/storageErrors';
import { openWorkspace } from '../workspaces/openWorkspace';
import { cliUser, instanceFor, locateWorkspace, parseCommand, readJsonFileBytes } from './context';
import { CliError, joined, jsonWords, line, type Line, type Output } from './output';
import { COMMON_OPTIONS, defineCommand } from './usage';

const IMPORT_OPTIONS = { ...COMMON_OPTIONS, comment: { type: 'string', value: 'TEXT', help: "the history entry's comment" } } as const;
const WHOLE = 'The file is imported whole or not at all (one history entry); an invalid entry is reported with its index.';

export const IMPORT_HOSTS = defineCommand({
  name: 'import-hosts',
  args: 'FILE',
  positionals: 1,
  summary: 'Import a JSON array of host identities ({"ip", "hits"?, "host_id"}).',
  options: IMPORT_OPTIONS,
  notes: [WHOLE],
});

export const IMPORT_THREATS = defineCommand({
  name: 'import-threats',
  args: 'FILE',
  positionals: 1,
  summary: "Import a JSON array of threats (the API's threat objects).",
  options: IMPORT_OPTIONS,
  notes: [WHOLE],
});

export function importCommand(which: 'hosts' | 'threats', args: readonly string[], out: Output): number {
  const { values, positionals } = parseCommand(args, which === 'hosts' ? IMPORT_HOSTS : IMPORT_THREATS);
  const file = positionals[0]!;
  const { value, size, sha256 } = readJsonFileBytes(file);
  const location = locateWorkspace(values);
  const workspace = openWorkspace({ file: location.file, instance: instanceFor('127.0.0.1') });
  try {
    const admin = workspace.services.users.byUsername('admin')!;
    const actor = { user: admin, clientIp: '' };
    const comment = values.comment ?? null;
    const count =
      which === 'hosts'
        ? importEntries(workspace.services, hostImport, value, actor, comment, { file: { name: file, size, sha256, from: 0, lines: 0 }, who: cliUser() })
        : importEntries(workspace.services, threatImport, value, actor, comment);
    out.line(line`imported ${count} ${which === 'hosts' ? 'host identities' : 'threats'} into workspace "${location.workspace}"`);
    return 0;
  } catch (error) {
    if (!(error instanceof ApiError)) throw withFile(error, location.file);
    const body = error.body;
    // The API's messages may quote the entries' values: shown as JSON, control characters escaped.
    const lines: Line[] = Array.isArray(body)
      ? body.flatMap((entry, i) => (entry && typeof entry === 'object' && Object.keys(entry).length > 0 ? [line`  entry ${i}: ${jsonWords(entry)}`] : []))
      : [line`  ${jsonWords(body)}`];
    const more = lines.length > 50 ? line`\n  … and ${lines.length - 50} more` : '';
    throw new CliError(line`nothing imported from ${file}; invalid entries:\n${joined(lines.slice(0, 50), '\n')}${more}`);
  } finally {
    workspace.close();
  }
}
