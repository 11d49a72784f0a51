/** `outpost serve`: the embedded API (and the web UI) on 127.0.0.1, until SIGINT/SIGTERM. */
import { listen } from '../server/http/nodeAdapter';
import { readTls, selfSignedTls, type TlsMaterial } from '../server/http/tls';
import { openWorkspace } from '../server/openWorkspace';
import { COMMON_OPTIONS, instanceFor, locateWorkspace, parseCommand } from './context';
import { UsageError } from './usage';

const TOKEN = /^[\x21-\x7e]{1,128}$/;

export async function serve(args: readonly string[], out: (line: string) => void): Promise<() => Promise<void>> {
  const { values } = parseCommand(
    args,
    {
      ...COMMON_OPTIONS,
      host: { type: 'string', default: '127.0.0.1' },
      port: { type: 'string', default: '8000' },
      tls: { type: 'string' },
      cert: { type: 'string' },
      key: { type: 'string' },
      'admin-token': { type: 'string' },
    },
    0,
  );
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, not "${values.port}"`);
  if (values.tls !== undefined && values.tls !== 'self-signed') throw new UsageError('--tls takes only "self-signed" (or give --cert and --key)');
  if (values.tls && (values.cert || values.key)) throw new UsageError('give either --tls self-signed or --cert/--key, not both');
  if (Boolean(values.cert) !== Boolean(values.key)) throw new UsageError('--cert and --key go together');
  const adminToken = values['admin-token'];
  if (adminToken !== undefined && !TOKEN.test(adminToken)) {
    throw new UsageError('--admin-token must be 1 to 128 printable characters without spaces (40 lowercase hex is usual)');
  }
  const location = locateWorkspace(values);
  let tls: TlsMaterial | undefined;
  if (values.tls) tls = await selfSignedTls(location.dataDir, values.host);
  else if (values.cert && values.key) tls = readTls(values.cert, values.key);

  const workspace = openWorkspace({
    file: location.file,
    instance: instanceFor(values.host),
    ...(adminToken === undefined ? {} : { adminToken }),
  });
  try {
    const server = await listen(workspace.api, { host: values.host, port, ...(tls ? { tls } : {}) }, (line) => process.stderr.write(line + '\n'));
    out(`data: ${location.dataDir}`);
    out(`workspace: ${location.workspace}`);
    out(`token: ${workspace.adminToken}`);
    out(`listening on ${server.url}`);
    return async () => {
      await server.close();
      workspace.close();
    };
  } catch (error) {
    workspace.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new Error(`port ${port} on ${values.host} is already in use (try --port 0 for a free one)`);
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') throw new Error(`cannot listen on ${values.host}: no such local address`);
    if (code === 'EACCES') throw new Error(`not allowed to listen on port ${port} (ports below 1024 need privileges)`);
    throw error;
  }
}
