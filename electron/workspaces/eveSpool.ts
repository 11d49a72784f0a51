/**
 * An upload received into a file beside the workspace's database before it is imported: then it
 * is read as any file is (by position, in segments either thread reads, checked against what former
 * imports read without reading that again), and none of it is held in memory. The file is this
 * user's only (0600) and removed when the import ends; an upload larger than the disk's free space
 * is refused before a byte is written; files left by a process that ended mid-import are removed
 * by the next upload.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { EveProgress } from '../../shared/eve/summary';
import { DiskFullError, EveImportError, isDiskFull } from './eveContent';
import type { RunSource } from './eveRun';
import { deadProcessFiles } from './leftovers';

const SPOOL_NAME = /^\.eve-upload-(\d+)-[0-9a-f]+\.part$/;
const TELL_MS = 250;
/** Bytes received and not yet written before the upload is read on: chunks written together, not one system call each (a 1 GB upload took 3.2 s to receive at 16 KiB). */
const WRITE_AHEAD_BYTES = 4 * 1024 * 1024;

type Given = Omit<RunSource, 'file'> & { readonly file?: string };

export interface SpoolWatch {
  readonly streams?: ReadonlyMap<number, AsyncIterable<Buffer>>;
  readonly onProgress?: (progress: EveProgress) => void;
  readonly signal?: AbortSignal;
}

/**
 * Receive each upload among `sources` (no `file`: its bytes in `streams`) into a file beside
 * `databaseFile`, each named in `made` as soon as it is begun (the caller removes them: `removeAll`);
 * the sources as files.
 */
export async function spoolUploads(databaseFile: string, sources: readonly Given[], watch: SpoolWatch, made: string[]): Promise<RunSource[]> {
  const folder = path.dirname(databaseFile);
  const files: RunSource[] = [];
  for (const [index, source] of sources.entries()) {
    const stream = watch.streams?.get(index);
    if (source.file !== undefined || !stream) {
      if (source.file === undefined) throw new Error(`no bytes given for ${source.name}`);
      files.push({ ...source, file: source.file });
      continue;
    }
    if (made.length === 0) removeLeftovers(folder);
    const file = path.join(folder, `.eve-upload-${process.pid}-${randomBytes(6).toString('hex')}.part`);
    made.push(file);
    await receive(stream, file, source, watch);
    files.push({ ...source, file, size: fs.statSync(file).size });
  }
  return files;
}

/** Remove these files, off the event loop (unlinking a 1 GB file held it for 70 ms). */
export async function removeAll(files: readonly string[]): Promise<void> {
  await Promise.all(files.map((file) => fs.promises.rm(file, { force: true })));
}

const FREE_SOME = 'nothing was imported; free some space there and import again';
const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(bytes < 10e6 ? 1 : 0)} MB`;

async function receive(stream: AsyncIterable<Buffer>, file: string, source: Given, { onProgress, signal }: SpoolWatch): Promise<void> {
  const folder = path.dirname(file);
  const declared = source.size ?? 0;
  const free = freeBytes(folder);
  if (free !== undefined && declared > free) throw new DiskFullError(`${source.name} is ${megabytes(declared)} and the disk holding ${folder} has ${megabytes(free)} free: ${FREE_SOME}`);
  const written = fs.createWriteStream(file, { flags: 'wx', mode: 0o600, highWaterMark: WRITE_AHEAD_BYTES });
  const tell = () => onProgress?.({ file: source.name, bytesRead: written.bytesWritten, bytesTotal: declared, events: 0, hosts: 0, receiving: true });
  tell();
  const timer = setInterval(tell, TELL_MS);
  try {
    await pipeline(stream, written, ...(signal ? [{ signal }] : []));
  } catch (error) {
    if (signal?.aborted) throw new EveImportError('the import was cancelled; nothing was imported');
    if (isDiskFull(error)) throw new DiskFullError(`the disk holding ${folder} is full (${(error as Error).message}): ${FREE_SOME}`);
    throw new EveImportError(`the upload of ${source.name} stopped before its end; nothing was imported`);
  } finally {
    clearInterval(timer);
  }
  if (declared > 0 && written.bytesWritten !== declared) throw new EveImportError(`the upload of ${source.name} stopped before its end (${written.bytesWritten} of ${declared} bytes); nothing was imported`);
}

/** Bytes an unprivileged user may still write on the disk holding `folder` (undefined where that cannot be asked). */
function freeBytes(folder: string): number | undefined {
  try {
    const stats = fs.statfsSync(folder);
    return stats.bavail * stats.bsize;
  } catch {
    return undefined;
  }
}

/** Remove the uploads left by processes that have ended (killed mid-import). */
function removeLeftovers(folder: string): void {
  for (const file of deadProcessFiles(folder, SPOOL_NAME)) void fs.promises.rm(file, { force: true }).catch(() => undefined);
}
