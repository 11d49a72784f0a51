/**
 * The work on an import body done before its handler runs: decode it as DRF's JSONParser does,
 * check its JSON syntax, then parse and check its entries one at a time (shared/api/imports.ts).
 * Pure (no I/O, no database): it runs in the body worker for large bodies and on the main thread
 * for small ones, with the same result — the answer parseBody and the handler's check give.
 */
import { ApiError } from '../../../shared/api/errors';
import { prepareImport, refusedImport, type ImportName, type PreparedImport } from '../../../shared/api/imports';
import { message } from '../../../shared/api/messages';
import { decodeJsonBytes } from '../../../shared/api/pythonJson';
import { jsonCharset } from './body';

export interface ImportJob {
  readonly name: ImportName;
  readonly contentType: string | undefined;
  readonly body: Uint8Array;
}

export function runImportJob(job: ImportJob): PreparedImport {
  // As parseBody: an empty body is `{}` whatever its type.
  if (job.body.byteLength === 0) return prepareImport(job.name, '{}');
  let charset: string | undefined;
  try {
    charset = jsonCharset(job.contentType);
  } catch (error) {
    if (error instanceof ApiError) return refusedImport(job.name, error.status, error.body);
    throw error;
  }
  const decoded = decodeJsonBytes(job.body, charset);
  if ('reason' in decoded) return refusedImport(job.name, 400, { detail: message.jsonParseError(decoded.reason) });
  return prepareImport(job.name, decoded.text);
}
