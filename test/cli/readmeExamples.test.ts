/**
 * The README's examples run as written. Every ```sh block of README.md is run, its commands in
 * order, on a fresh data folder ($OUTPOST_DATA), and each must succeed: `curl` an HTTP 2xx (the
 * request is sent with fetch, as curl would send it: helpers/readmeShell.ts), `npm run outpost --`
 * and `npm run serve --` exit 0 (run as the bundled CLI those scripts start; `npm run serve`'s own
 * step, building the UI, is firstRun.test.ts's). Blocks fenced ``` without `sh` are synopses and
 * transcripts, not run. The liberties taken: port 8000 becomes a free one, and the central server
 * https://central.example.com is the reference DRF server, with the token the block gives it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { startReference, type ReferenceServer } from '../helpers/reference';
import { curlRequest, logicalLines, parseCommand, shellBlocks, type ShellBlock } from '../helpers/readmeShell';
import { CLI, freePort, outpost } from '../helpers/syncCli';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const README = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const BLOCKS = shellBlocks(README);
const CENTRAL = 'https://central.example.com';

const folders: string[] = [];
afterEach(() => {
  for (const dir of folders.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

/** `npm run outpost -- ARGS` and `npm run serve -- ARGS` as the CLI's arguments. */
function cliArguments(words: readonly string[], where: string): string[] {
  const [npm, run, script, dashes, ...rest] = words;
  if (npm !== 'npm' || run !== 'run' || (script !== 'outpost' && script !== 'serve') || (dashes !== undefined && dashes !== '--')) {
    throw new Error(`${where}: the README test runs "npm run outpost -- …", "npm run serve -- …", curl and NAME=value only`);
  }
  return script === 'serve' ? ['serve', ...rest] : rest;
}

function startServer(args: readonly string[], env: Record<string, string>, where: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${where}: no "listening on" line:\n${output}`)), 20_000);
    child.stdout!.on('data', () => {
      if (!/^listening on /m.test(output)) return;
      clearTimeout(timer);
      resolve(child);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${where}: the server exited with ${code}:\n${output}`));
    });
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.kill('SIGTERM');
  return exited;
}

/** Run one block on a fresh data folder; returns what ran, one line per command. */
async function runBlock(block: ShellBlock, central: ReferenceServer | undefined): Promise<string[]> {
  const data = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-readme-'));
  folders.push(data);
  const port = String(await freePort());
  let text = block.text.replaceAll('127.0.0.1:8000', `127.0.0.1:${port}`).replaceAll('--port 8000', `--port ${port}`);
  if (central) text = text.replaceAll(CENTRAL, central.url);
  const env: Record<string, string> = {};
  const servers: ChildProcess[] = [];
  const ran: string[] = [];
  try {
    for (const { line, source } of logicalLines({ line: block.line, text })) {
      const where = `README.md:${line}: ${source.trim()}`;
      const command = parseCommand(source, env);
      if (command.assignment) {
        env[command.assignment.name] = command.assignment.value;
        continue;
      }
      if (command.words[0] === 'curl') {
        const request = curlRequest(command.words.slice(1));
        const reply = await fetch(request.url, { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) });
        const body = await reply.text();
        expect(reply.ok, `${where}\n→ ${reply.status} ${body.slice(0, 500)}`).toBe(true);
        ran.push(`curl ${request.method} ${reply.status}`);
        continue;
      }
      const args = cliArguments(command.words, where);
      if (command.background) {
        if (args[0] !== 'serve') throw new Error(`${where}: only the server runs in the background`);
        servers.push(await startServer(args, { OUTPOST_DATA: data }, where));
        ran.push('serve &');
        continue;
      }
      const result = await outpost(args, { OUTPOST_DATA: data });
      expect(result.status, `${where}\n${result.stdout}${result.stderr}`).toBe(0);
      ran.push(`outpost ${args[0]}`);
    }
  } finally {
    for (const server of servers) expect(await stop(server)).toBe(0);
  }
  return ran;
}

describe('how the examples are read', () => {
  test('words as bash splits and expands them: quotes, $NAME and ${NAME}, a comment, a final &', () => {
    const env = { TOKEN: 'abc', API: 'http://h/rest' };
    expect(parseCommand(`curl -H "Authorization: Token $TOKEN" '$API'/x \${API}/y # why`, env)).toEqual({
      words: ['curl', '-H', 'Authorization: Token abc', '$API/x', 'http://h/rest/y'],
      background: false,
    });
    expect(parseCommand('npm run serve -- --admin-token $TOKEN &', env)).toMatchObject({ words: ['npm', 'run', 'serve', '--', '--admin-token', 'abc'], background: true });
    expect(parseCommand('H="Authorization: Token $TOKEN"', env).assignment).toEqual({ name: 'H', value: 'Authorization: Token abc' });
    expect(() => parseCommand('curl $NOPE/', env)).toThrow(/\$NOPE is not set/);
    expect(() => parseCommand('curl x | jq', env)).toThrow(/more shell/);
  });

  test('a continued line is one command, at the line where it starts', () => {
    expect(logicalLines({ line: 10, text: '# a comment\ncurl -X POST x \\\n     -d 1\n\nA=1' })).toEqual([
      { line: 11, source: 'curl -X POST x -d 1' },
      { line: 14, source: 'A=1' },
    ]);
  });

  test('a curl command line is the request curl sends', () => {
    expect(curlRequest(['-H', 'A: 1', '-H', 'Content-Type: application/json', '-X', 'PATCH', 'http://h/x/', '-d', '{"a": 1}'])).toEqual({
      method: 'PATCH',
      url: 'http://h/x/',
      headers: { A: '1', 'Content-Type': 'application/json' },
      body: '{"a": 1}',
    });
    expect(curlRequest(['-d', 'a=1', 'http://h/x/'])).toMatchObject({ method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
    expect(curlRequest(['-G', 'http://h/x/?p=1', '--data-urlencode', 'q=host:mail* AND hits:>10'])).toEqual({
      method: 'GET',
      url: 'http://h/x/?p=1&q=host%3Amail*%20AND%20hits%3A%3E10',
      headers: {},
    });
    expect(() => curlRequest(['-k', 'http://h/'])).toThrow(/not understood/);
  });
});

describe("the README's shell examples", () => {
  test('there are examples of the API, the server and the command line to run', () => {
    const commands = BLOCKS.flatMap((block) => logicalLines(block).map((l) => l.source.trim()));
    expect(commands.filter((c) => c.startsWith('curl ')).length).toBeGreaterThanOrEqual(10);
    expect(commands.some((c) => /^npm run serve -- .*&$/.test(c))).toBe(true);
    expect(commands.some((c) => c.startsWith('npm run outpost -- '))).toBe(true);
  });

  test.each(BLOCKS.map((block) => [block.line, block] as const))(
    'the block at README line %i runs as written on a fresh data folder',
    { timeout: 120_000 },
    async (_line, block) => {
      // The token the README gives its central server is the one the reference server accepts.
      const token = new RegExp(`remote add \\S+ ${CENTRAL.replaceAll('.', '\\.')}\\S* --token (\\S+)`).exec(block.text)?.[1];
      const central = block.text.includes(CENTRAL) ? await startReference(token === undefined ? {} : { token }) : undefined;
      try {
        const ran = await runBlock(block, central);
        expect(ran.length).toBeGreaterThan(0);
      } finally {
        await central?.stop();
      }
    },
  );
});
