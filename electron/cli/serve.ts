/** `outpost serve`: the embedded API, the app's endpoints and the web UI, until SIGINT/SIGTERM. */
import fs from 'node:fs';
import path from 'node:path';
import { createAppHandler } from '../app/appHandler';
import { listen } from '../server/http/nodeAdapter';
import { readTls, selfSignedTls, type TlsMaterial } from '../server/http/tls';
import { WorkspaceHost } from '../workspaces/host';
import { VERSION, instanceFor, parseCommand } from './context';
import { line, type Output } from './output';
import { COMMON_OPTIONS, UsageError, defineCommand } from './usage';
import { defaultDataDir } from '../workspaces/dataFolder';

const TOKEN = /^[\x21-\x7e]{1,128}$/;

/** The renderer's build next to the bundled CLI (dist/node → dist/renderer), if it was built. */
function rendererBuild(): string | undefined {
  const dir = process.env.OUTPOST_RENDERER_DIR ?? path.resolve(__dirname, '..', 'renderer');
  return fs.existsSync(path.join(dir, 'index.html')) ? dir : undefined;
}

export const SERVE = defineCommand({
  name: 'serve',
  positionals: 0,
  summary: 'Run the embedded central-server API and the web UI until Ctrl-C.',
  options: {
    ...COMMON_OPTIONS,
    host: { type: 'string', value: 'ADDRESS', help: 'the address to listen on', default: '127.0.0.1' },
    port: { type: 'string', value: 'PORT', help: 'the port to listen on; 0 picks a free one', default: '8000' },
    tls: { type: 'string', value: 'self-signed', help: 'serve HTTPS with a certificate made once and kept in the data folder' },
    cert: { type: 'string', value: 'FILE', help: 'serve HTTPS with this certificate (PEM; with --key)' },
    key: { type: 'string', value: 'FILE', help: "the certificate's private key (PEM; with --cert)" },
    'admin-token': { type: 'string', value: 'TOKEN', help: "the admin user's token on the first start (default: a random 40-hex one, printed and kept)" },
  },
  notes: ['The web UI is served at / when it was built (npm run serve builds it when missing or out of date).'],
});

export async function serve(args: readonly string[], out: Output): Promise<() => Promise<void>> {
  const { values } = parseCommand(args, SERVE);
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${values.port}"`);
  if (values.tls !== undefined && values.tls !== 'self-signed') throw new UsageError('--tls takes only "self-signed" (or give --cert and --key)');
  if (values.tls && (values.cert || values.key)) throw new UsageError('give either --tls self-signed or --cert/--key, not both');
  if (Boolean(values.cert) !== Boolean(values.key)) throw new UsageError('--cert and --key go together');
  const adminToken = values['admin-token'];
  if (adminToken !== undefined && !TOKEN.test(adminToken)) {
    throw new UsageError('--admin-token must be 1 to 128 printable characters without spaces (40 lowercase hex is usual)');
  }
  const host = new WorkspaceHost({
    dataDir: values.data ?? defaultDataDir(),
    instance: instanceFor(values.host),
    ...(values.workspace === undefined ? {} : { workspace: values.workspace }),
    ...(adminToken === undefined ? {} : { adminToken }),
    sync: { auto: true, label: 'serve', log: (message) => out.stderr(line`outpost: ${message}`) },
  });
  try {
    let tls: TlsMaterial | undefined;
    if (values.tls) tls = await selfSignedTls(host.dataDir, values.host);
    else if (values.cert && values.key) tls = readTls(values.cert, values.key);
    const rendererDir = rendererBuild();
    const handler = createAppHandler({ host, version: VERSION, ...(rendererDir ? { rendererDir } : {}) });
    const server = await listen(handler, { host: values.host, port, ...(tls ? { tls } : {}) }, (text) => out.log(text));
    out.line(line`data: ${host.dataDir}`);
    out.line(line`workspace: ${host.name}`);
    const session = host.session();
    if (session) {
      const how = (s: { mode(): string }) => (s.mode() === 'review' ? 'pulled automatically, changes sent after review (outpost sync --plan)' : 'synced automatically');
      out.line(line`central server: ${'problem' in session ? session.problem : line`${session.config.name} (${session.config.url}), ${how(session)}`}`);
    }
    out.line(line`token: ${host.token}`);
    out.line(line`listening on ${server.url}`);
    out.line(rendererDir ? line`web UI: ${server.url}/ (sign in with the token)` : line`web UI: not built (npm run serve builds it, or npm run build:renderer); the API is served`);
    return async () => {
      // The sync lease first: an `outpost sync` run right after Ctrl-C finds it free.
      await host.stopSyncing();
      await server.close();
      await host.close();
    };
  } catch (error) {
    await host.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${port} on ${values.host} is already in use (try --port 0 for a free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new Error(`cannot listen on ${values.host}: no such local address`);
    if (code === 'EACCES') throw new Error(`not allowed to listen on port ${port} (ports below 1024 need privileges)`);
    throw error;
  }
}
