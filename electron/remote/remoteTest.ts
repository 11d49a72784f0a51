/**
 * Test a remote before relying on it (issue 25 §4): is it reachable (DNS, TCP), is its certificate
 * accepted (verified, or the pinned one), is the token accepted, and does the API answer as the
 * central server's does (list pages of the endpoints the pull reads). Each step is timed and
 * bounded; the first failure stops the test. The TLS step and the requests open their connections
 * with `remoteConnector` and `RemoteClient`, the sync's own, so "insecure" and the pin count
 * exactly as in a sync.
 */
import dns from 'node:dns/promises';
import net from 'node:net';
import tls, { type PeerCertificate, type TLSSocket } from 'node:tls';
import type { Socket } from 'node:net';
import { NOT_AN_API, REMOTE_TEST_STEPS, type RemoteTestResult, type RemoteTestStep, type RemoteTestStepName } from '../../shared/app/remoteTest';
import { checkRemoteConfig, classify, remoteConnector, RemoteClient, RemoteError, type RemoteConfig } from './client';
import { pageOf } from './pull';
import { PULLED, pullPath, pullQuery } from './synced';

export interface RemoteTestOptions {
  /** The longest any one step may take (default 10 s). */
  readonly stepTimeoutMs?: number;
}

/** A step's verdict: its message, and whether it passed (or did not apply). */
interface Verdict {
  readonly outcome: 'passed' | 'failed' | 'skipped';
  readonly message: string;
}

const passed = (message: string): Verdict => ({ outcome: 'passed', message });
const failed = (message: string): Verdict => ({ outcome: 'failed', message });

class StepTimeout extends Error {}

const NOT_TRIED = 'not tried: an earlier step failed';

/** A step's work, given up (and failed) after `ms`. */
function bounded<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new StepTimeout()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

/** The longest message of a step: a server's error detail is quoted in it, and may be of any length. */
export const MAX_STEP_MESSAGE = 1000;

function boundedMessage(message: string): string {
  return message.length <= MAX_STEP_MESSAGE ? message : `${message.slice(0, MAX_STEP_MESSAGE)}…`;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

export async function testRemote(config: RemoteConfig, token: string | undefined, options: RemoteTestOptions = {}): Promise<RemoteTestResult> {
  const stepMs = options.stepTimeoutMs ?? 10_000;
  let url: URL;
  try {
    url = checkRemoteConfig(config).url;
  } catch (error) {
    // A remotes.json edited by hand: the test says so rather than failing as a whole.
    const message = `the remote's settings cannot work: ${error instanceof Error ? error.message : String(error)}`;
    const steps = REMOTE_TEST_STEPS.map((step, i): RemoteTestStep => (i === 0 ? { step, outcome: 'failed', message, ms: 0 } : { step, outcome: 'not-tried', message: NOT_TRIED, ms: null }));
    return { remote: config.name, url: config.url, ok: false, steps };
  }
  const hostname = url.hostname.replace(/^\[|\]$/g, '');
  const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
  const client = new RemoteClient(config, () => token ?? '', {
    getAttempts: 1,
    connectTimeoutMs: stepMs,
    headersTimeoutMs: stepMs,
    bodyTimeoutMs: stepMs,
    deadlineMs: stepMs,
  });
  const checks: Readonly<Record<RemoteTestStepName, () => Promise<Verdict>>> = {
    reachable: () => reachable(hostname, port, stepMs),
    tls: () => (url.protocol === 'https:' ? certificate(config, hostname, url.host, port, stepMs) : Promise.resolve({ outcome: 'skipped', message: 'plain http:// (a loopback address): no TLS' })),
    token: () => (token === undefined ? Promise.resolve(failed('no token is kept for this remote: give one (outpost remote set-token, or Settings → Remotes)')) : tokenAccepted(client)),
    api: () => apiAnswers(client),
  };
  const steps: RemoteTestStep[] = [];
  let stopped = false;
  try {
    for (const step of REMOTE_TEST_STEPS) {
      if (stopped) {
        steps.push({ step, outcome: 'not-tried', message: NOT_TRIED, ms: null });
        continue;
      }
      const started = performance.now();
      let verdict: Verdict;
      try {
        verdict = await bounded(checks[step](), stepMs);
      } catch (error) {
        verdict = failed(error instanceof StepTimeout ? `no answer within ${seconds(stepMs)}` : error instanceof Error ? error.message : String(error));
      }
      steps.push({ step, outcome: verdict.outcome, message: boundedMessage(verdict.message), ms: Math.round(performance.now() - started) });
      stopped = verdict.outcome === 'failed';
    }
  } finally {
    // Not awaited: a request given up on ends at its own deadline; the answer does not wait for it.
    void client.close();
  }
  return { remote: config.name, url: config.url, ok: !stopped, steps };
}

/** DNS, then a TCP connection to the address found. */
async function reachable(hostname: string, port: number, ms: number): Promise<Verdict> {
  let address: string;
  try {
    address = net.isIP(hostname) ? hostname : (await dns.lookup(hostname)).address;
  } catch (error) {
    return failed(`${hostname}: ${classify(error, hostname).message.replace(/^the central server \S+ cannot be reached: /, '')}`);
  }
  const where = `${address.includes(':') ? `[${address}]` : address}:${port}`;
  const named = address === hostname ? where : `${hostname} (${where})`;
  try {
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect({ host: address, port, timeout: ms });
      socket.once('connect', () => {
        socket.destroy();
        resolve();
      });
      socket.once('timeout', () => {
        socket.destroy();
        reject(new StepTimeout());
      });
      socket.once('error', reject);
    });
  } catch (error) {
    if (error instanceof StepTimeout) return failed(`${named}: no answer within ${seconds(ms)} (a firewall, or the wrong address?)`);
    return failed(`${named}: ${classify(error, hostname).message.replace(/^the central server \S+ cannot be reached:? /, '')}`);
  }
  return passed(`${named} accepts connections`);
}

/** Words for the certificate errors of Node's TLS, by code. */
const CERTIFICATE_WORDS: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'it is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'it is signed by an authority this computer does not trust (self-signed)',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'its signer is unknown to this computer',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'its signer is unknown to this computer',
  CERT_HAS_EXPIRED: 'it has expired',
  CERT_NOT_YET_VALID: 'it is not valid yet (is this computer’s clock right?)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'it is not valid for this host name',
};

function fingerprintOf(socket: Socket): PeerCertificate | undefined {
  const peer = (socket as TLSSocket).getPeerCertificate?.();
  return peer && peer.fingerprint256 ? peer : undefined;
}

/** The certificate's SHA-256, read without verifying it: what the engineer compares and pins. */
function unverifiedFingerprint(hostname: string, port: number, ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: hostname, port, rejectUnauthorized: false, ...(net.isIP(hostname) ? {} : { servername: hostname }), timeout: ms });
    const done = (value: string | undefined) => {
      socket.destroy();
      resolve(value);
    };
    socket.once('secureConnect', () => done(fingerprintOf(socket)?.fingerprint256));
    socket.once('timeout', () => done(undefined));
    socket.once('error', () => done(undefined));
  });
}

/** The TLS handshake as the sync makes it: the certificate verified, or the pinned one, or not checked (insecure). */
async function certificate(config: RemoteConfig, hostname: string, host: string, port: number, ms: number): Promise<Verdict> {
  const connect = await remoteConnector(config, ms);
  let socket: Socket;
  try {
    socket = await new Promise<Socket>((resolve, reject) =>
      connect({ hostname, host, protocol: 'https:', port: String(port), ...(net.isIP(hostname) ? {} : { servername: hostname }) }, (error, opened) =>
        error || !opened ? reject(error ?? new Error('no connection')) : resolve(opened),
      ),
    );
  } catch (error) {
    if (error instanceof RemoteError) return failed(`${error.message}: check the fingerprint with the server's administrator, then change the pin`);
    const code = (error as { code?: string }).code ?? '';
    const words = CERTIFICATE_WORDS[code];
    if (!words && !/CERT|SSL|TLS|EPROTO/i.test(code)) return failed(classify(error, host).message);
    if (!words) return failed(`the TLS handshake with ${host} failed (${code || (error as Error).message}): is it an https:// server?`);
    const seen = await unverifiedFingerprint(hostname, port, ms);
    const hint = seen ? `; its SHA-256 is ${seen}: if the server's administrator confirms it, pin it` : '';
    return failed(`the certificate of ${host} is not accepted: ${words} [${code}]${hint}`);
  }
  try {
    const peer = fingerprintOf(socket);
    const subject = peer ? String(peer.subject?.CN ?? '') : '';
    const until = peer?.valid_to ? `, valid until ${peer.valid_to}` : '';
    if (config.pin) return passed(`the certificate is the pinned one (SHA-256 ${peer?.fingerprint256 ?? config.pin})${until}`);
    if (config.insecure) return passed(`not verified (this remote's setting): a certificate${subject ? ` for ${subject}` : ''}, SHA-256 ${peer?.fingerprint256 ?? 'unknown'}`);
    const issuer = peer ? String(peer.issuer?.CN ?? peer.issuer?.O ?? '') : '';
    return passed(`valid for ${hostname}${issuer ? `, issued by ${issuer}` : ''}${until}`);
  } finally {
    socket.destroy();
  }
}

/** A request's failure in the words of the test: a refused token, or a server that is not the API. */
function answerFailure(error: unknown): Verdict {
  if (error instanceof RemoteError && error.kind === 'auth') return failed(`token refused: ${error.message}`);
  if (error instanceof RemoteError && error.kind === 'invalid' && error.status !== undefined && (error.status < 300 || error.status >= 400)) return failed(`${NOT_AN_API}: ${error.message}`);
  if (error instanceof Error) return failed(error.message);
  return failed(String(error));
}

function listPath(endpoint: string): string {
  return `/rest/${pullPath(endpoint)}/`;
}

/** One authenticated GET the API answers 200 to. */
async function tokenAccepted(client: RemoteClient): Promise<Verdict> {
  const endpoint = PULLED[0]!;
  try {
    const reply = await client.send('GET', listPath(endpoint), undefined, { page_size: 1, ...pullQuery(endpoint) });
    if (reply.status === 200 && reply.body !== null) return passed(`the token is accepted (GET ${listPath(endpoint)} answered 200)`);
    const hint = reply.status === 404 ? ' (the URL is the server’s base, without /rest/)' : '';
    return failed(`${NOT_AN_API}: GET ${listPath(endpoint)} answered ${reply.status}${hint}`);
  } catch (error) {
    return answerFailure(error);
  }
}

/** Every endpoint the pull reads answers a list page (count, results) of objects with their keys. */
async function apiAnswers(client: RemoteClient): Promise<Verdict> {
  const counts: string[] = [];
  for (const endpoint of PULLED) {
    try {
      const reply = await client.send('GET', listPath(endpoint), undefined, { page_size: 1, ...pullQuery(endpoint) });
      if (reply.status !== 200) return failed(`${NOT_AN_API}: GET ${listPath(endpoint)} answered ${reply.status}`);
      counts.push(`${endpoint} ${pageOf(reply, endpoint).count}`);
    } catch (error) {
      if (error instanceof RemoteError && error.kind === 'invalid' && error.status === undefined) return failed(`${NOT_AN_API}: ${error.message}`);
      return answerFailure(error);
    }
  }
  return passed(`the ${PULLED.length} endpoints a sync reads answer list pages (${counts.join(', ')})`);
}
