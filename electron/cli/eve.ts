/**
 * `outpost import-eve PATH... [--home-net CIDR[,CIDR...]] [--follow]`: host identities from
 * Suricata EVE logs, offline (app.md §5). A progress line on a terminal, then the summary; exit 0
 * when the import worked (bad lines are counted, never fatal), 1 with one clear message when a
 * path cannot be read, a gzip file is truncated or a file has no EVE event in it.
 */
import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { EveImportError, fileSources, importEve, type EveProgress, type EveSummary } from '../workspaces/eveImport';
import { openWorkspace } from '../workspaces/openWorkspace';
import { withFile } from '../server/store/storageErrors';
import { cliUser, instanceFor, locateWorkspace, parseCommand } from './context';
import { line, type Line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand } from './usage';

export const IMPORT_EVE = defineCommand({
  name: 'import-eve',
  args: 'PATH...',
  positionals: -1,
  summary: 'Host identities from Suricata EVE logs (files, .gz, folders of them).',
  options: {
    ...COMMON_OPTIONS,
    'home-net': { type: 'string', value: 'CIDR[,CIDR...]', help: "the site's home networks (kept for the next imports)" },
    follow: { type: 'boolean', help: 'keep reading a growing log every 5 s until Ctrl-C' },
  },
  notes: [
    'A folder of rotated logs is read oldest first; running it again reads only what the logs gained since.',
    'Bad lines are counted and skipped; nothing of a failed import stays.',
  ],
});

const FOLLOW_EVERY_MS = 5000;

function megabytes(bytes: number): string {
  return `${(bytes / 1e6).toFixed(1)} MB`;
}

function progressLine(progress: EveProgress, startedAt: number): Line {
  if (progress.waitingFor) return line`waiting: ${progress.waitingFor}`;
  const seconds = Math.max((Date.now() - startedAt) / 1000, 0.001);
  const share = progress.bytesTotal > 0 ? ` (${Math.floor((100 * progress.bytesRead) / progress.bytesTotal)} %)` : '';
  return line`${megabytes(progress.bytesRead)} of ${megabytes(progress.bytesTotal)}${share}, ${Math.round(progress.events / seconds)} events/s, ${progress.hosts} hosts`;
}

export function summaryLines(summary: EveSummary): Line[] {
  const lines: Line[] = [];
  const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;
  for (const file of summary.files) {
    const already = file.alreadyImported > 0 ? ` (${plural(file.alreadyImported, 'line')} already imported)` : '';
    if (file.lines === 0) lines.push(line`${file.path}: nothing new since the last import${already}`);
    else lines.push(line`${file.path}: ${plural(file.lines, 'line')} from line ${file.fromLine}${already}`);
  }
  for (const file of summary.ignored) lines.push(line`${file.path}: ignored (${file.reason})`);
  lines.push(line`lines read: ${summary.linesRead}`);
  lines.push(line`events used: ${summary.eventsUsed}${summary.eventsOther > 0 ? ` (and ${summary.eventsOther} events of other types, which say nothing of hosts)` : ''}`);
  const counted = (what: string, counts: EveSummary['skipped'] | EveSummary['dropped']) => {
    for (const [reason, entry] of Object.entries(counts)) {
      // `first` names places as file:line: a file name from the folder.
      if (entry) lines.push(line`${what}, ${reason}: ${entry.count} (first: ${entry.first.join(', ')}${entry.count > entry.first.length ? ', …' : ''})`);
    }
  };
  counted('lines skipped', summary.skipped);
  counted('values not stored', summary.dropped);
  lines.push(line`hosts created: ${summary.hostsCreated}, updated: ${summary.hostsUpdated}`);
  return lines;
}

/** The device and inode of each file the paths name now, by absolute path. */
function fileIdentities(paths: readonly string[]): Map<string, { dev: number; ino: number }> {
  const found = new Map<string, { dev: number; ino: number }>();
  for (const source of fileSources(paths).sources) {
    const stat = fs.statSync(source.file!, { throwIfNoEntry: false });
    if (stat) found.set(source.key, { dev: stat.dev, ino: stat.ino });
  }
  return found;
}

export async function importEveCommand(args: readonly string[], out: Output): Promise<number> {
  const { values, positionals } = parseCommand(args, IMPORT_EVE);
  if (positionals.length === 0) throw new UsageError('give at least one EVE file or folder', IMPORT_EVE.name);
  const location = locateWorkspace(values);
  const workspace = openWorkspace({ file: location.file, instance: instanceFor('127.0.0.1') });
  const progress = out.progress;
  const stop = new AbortController();
  const onSignal = () => stop.abort();
  process.once('SIGINT', onSignal);
  try {
    let first = true;
    // The files read on the last tick (--follow): found again by their last 4 KiB alone while they stay the same files.
    let followed = new Map<string, { dev: number; ino: number }>();
    for (;;) {
      const startedAt = Date.now();
      let summary: EveSummary;
      try {
        const listed = fileSources(positionals);
        const sources = listed.sources.map((source) => ({ ...source, ...(followed.has(source.key) ? { followed: followed.get(source.key)! } : {}) }));
        const { ignored } = listed;
        summary = await importEve(workspace.services, {
          sources,
          ignored,
          visitUser: cliUser(),
          ...(first && values['home-net'] !== undefined ? { homeNets: values['home-net'] } : {}),
          signal: stop.signal,
          ...(progress ? { onProgress: (p: EveProgress) => progress.show(progressLine(p, startedAt)) } : {}),
        });
      } catch (error) {
        progress?.clear();
        if (values.follow && stop.signal.aborted) return 0;
        if (error instanceof EveImportError) throw new Error(error.message);
        throw withFile(error, location.file);
      }
      progress?.clear();
      if (first || summary.linesRead > 0) for (const shown of summaryLines(summary)) out.line(shown);
      first = false;
      if (!values.follow) return 0;
      followed = fileIdentities(positionals);
      // --follow: read what was added every few seconds, until Ctrl-C.
      try {
        await sleep(FOLLOW_EVERY_MS, undefined, { signal: stop.signal });
      } catch {
        return 0;
      }
    }
  } finally {
    process.off('SIGINT', onSignal);
    workspace.close();
  }
}
