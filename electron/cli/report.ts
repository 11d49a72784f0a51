/**
 * `outpost report --out site.html|site.pdf` (issue 24 §3, docs/report.md): the site report of a
 * workspace as one self-contained HTML file, or as PDF printed by the system's Chromium; without
 * one, exit 1 saying to write the HTML and print it from a browser.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ApiError } from '../../shared/api/errors';
import { reportInputsFor, siteReportHtml } from '../app/hostExport';
import { reportPdf } from '../app/reportPdf';
import { replaceFile, withFile } from '../server/store/storageErrors';
import { openWorkspace } from '../workspaces/openWorkspace';
import { VERSION, instanceFor, locateWorkspace, parseCommand } from './context';
import { CliError, jsonWords, line, type Output } from './output';
import { HOST_FILTER_OPTIONS, filterFromOptions } from './hostExport';
import { COMMON_OPTIONS, UsageError, defineCommand } from './usage';

export const REPORT = defineCommand({
  name: 'report',
  positionals: 0,
  summary: 'Write the site report: one HTML file to hand over, or its PDF.',
  options: {
    ...COMMON_OPTIONS,
    out: { type: 'string', value: 'FILE', help: 'site.html, or site.pdf (printed by the system\'s Chromium)' },
    since: { type: 'string', value: 'IMPORT', help: 'add what changed since this import (its number in the imports list)' },
    users: { type: 'boolean', help: 'add the users of each host (usernames are personal data: left out unless asked)' },
    ...HOST_FILTER_OPTIONS,
    force: { type: 'boolean', help: 'replace FILE if it exists' },
  },
  notes: ['The HTML needs nothing but itself (no script, no network) and prints to A4. Times are UTC. Exit 1 when a PDF was asked for and no Chromium was found.'],
});

export async function reportCommand(args: readonly string[], out: Output): Promise<number> {
  const { values } = parseCommand(args, REPORT);
  const file = values.out;
  if (file === undefined) throw new UsageError('--out site.html or --out site.pdf is needed', REPORT.name);
  const extension = path.extname(file).toLowerCase();
  if (extension !== '.html' && extension !== '.htm' && extension !== '.pdf') throw new UsageError(`--out takes a .html or .pdf file, not "${file}"`, REPORT.name);
  if (fs.existsSync(file) && !values.force) throw new Error(`${file} exists already; give --force to replace it`);
  const since = values.since;
  if (since !== undefined && !/^[1-9]\d{0,15}$/.test(since)) throw new UsageError(`--since takes the number of an import, not "${since}"`, REPORT.name);
  const filter = filterFromOptions(values, REPORT.name);
  const location = locateWorkspace(values);
  const workspace = openWorkspace({ file: location.file, instance: instanceFor('127.0.0.1') });
  let html: string;
  try {
    const inputs = reportInputsFor(workspace.services, {
      workspace: location.workspace,
      version: VERSION,
      filter,
      users: values.users === true,
      ...(since === undefined ? {} : { since: Number(since) }),
    });
    html = await siteReportHtml(workspace.services, inputs);
  } catch (error) {
    if (error instanceof ApiError) throw new CliError(line`cannot make the report: ${jsonWords(error.body)}`);
    throw withFile(error, location.file);
  } finally {
    workspace.close();
  }
  if (extension === '.pdf') {
    const made = await reportPdf(html);
    if (!made.ok) throw new CliError(line`no PDF made: ${made.reason} (outpost report --out site.html)`);
    replaceFile(file, made.pdf);
  } else replaceFile(file, html);
  out.line(line`site report of workspace "${location.workspace}" written to ${file}`);
  return 0;
}
