/**
 * How the renderer reaches the server and repeats itself (docs/architecture.md, "renderer/"):
 * every request goes through the one API client (renderer/src/api/client.ts; an upload with its
 * progress through hostsUpload.ts), and anything done again and again through the one poll
 * helper (renderer/src/stores/poll.ts), whose next run starts after the previous one ended and
 * which aborts the run under way when stopped. Screens load data with useQuery.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, test } from 'vitest';
import { ROOT, sourceFiles } from '../helpers/sourceFiles';

const RENDERER = 'renderer/src';

/** Where each way of reaching out or repeating may be used, and nowhere else. */
const ONLY_IN: readonly { readonly what: string; readonly pattern: RegExp; readonly file: string }[] = [
  { what: 'calls fetch', pattern: /\bfetch\s*\(/, file: 'renderer/src/api/client.ts' },
  { what: 'uses XMLHttpRequest', pattern: /\bXMLHttpRequest\b/, file: 'renderer/src/screens/hostsUpload.ts' },
  { what: 'uses setInterval', pattern: /\bsetInterval\s*\(/, file: 'renderer/src/stores/poll.ts' },
];

/** The code of a file without its comments (a comment may name fetch to say why it is not used). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
}

/** What a file does outside the file each way belongs to, one line each. */
function misplaced(file: string, text: string): string[] {
  const body = code(text);
  return ONLY_IN.filter((rule) => rule.file !== file && rule.pattern.test(body)).map((rule) => `${file} ${rule.what} (only ${rule.file} may)`);
}

describe('the renderer reaches the server through its client and polls through one helper', () => {
  test('no screen, store or component calls fetch, XMLHttpRequest or setInterval itself', () => {
    const found = sourceFiles(RENDERER).flatMap((file) => misplaced(file, fs.readFileSync(path.join(ROOT, file), 'utf8')));
    expect(found).toEqual([]);
  });

  test('the check finds a store that fetches and a screen that polls with setInterval, not a comment that names them', () => {
    expect(misplaced('renderer/src/stores/session.ts', "const reply = await fetch('/api-auth/session/');")).toEqual([
      'renderer/src/stores/session.ts calls fetch (only renderer/src/api/client.ts may)',
    ]);
    expect(misplaced('renderer/src/screens/hostsEve.tsx', 'poll.current = window.setInterval(() => void read(), 500);')).toEqual([
      'renderer/src/screens/hostsEve.tsx uses setInterval (only renderer/src/stores/poll.ts may)',
    ]);
    expect(misplaced('renderer/src/screens/hostsUpload.ts', '/** XMLHttpRequest reports upload progress; fetch() cannot. */\n// setInterval( is not used\nnew XMLHttpRequest();')).toEqual([]);
  });
});
