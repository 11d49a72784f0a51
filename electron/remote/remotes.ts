/**
 * The remote central servers known to a data folder: `remotes.json` (name, URL, TLS choices)
 * and each one's token in a secret store — a 0600 file headless, Electron's safeStorage in the
 * app (app.md §2). The renderer never sees a remote token.
 */
import fs from 'node:fs';
import path from 'node:path';
import { sameOrigin } from '../../shared/app/remoteOrigin';
import { replaceFile } from '../server/store/storageErrors';
import { checkRemoteConfig, normalizeFingerprint, RemoteConfigError, type RemoteConfig } from './client';

export { RemoteConfigError, sameOrigin };

export interface SecretStore {
  read(name: string): string | undefined;
  write(name: string, secret: string): void;
  remove(name: string): void;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Tokens as files `remotes/<name>.token`, mode 0600, in a 0700 folder. */
export function fileSecrets(dataDir: string): SecretStore {
  const dir = path.join(dataDir, 'remotes');
  const file = (name: string) => path.join(dir, `${name}.token`);
  return {
    read: (name) => (fs.existsSync(file(name)) ? fs.readFileSync(file(name), 'utf8').trim() : undefined),
    write: (name, secret) => {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      replaceFile(file(name), `${secret}\n`);
    },
    remove: (name) => fs.rmSync(file(name), { force: true }),
  };
}

/**
 * The desktop app's store: tokens decrypted by the main process (Electron safeStorage) and handed
 * over at start; a new or removed token is handed back to be encrypted and written there. A token
 * the CLI wrote (a 0600 file) is still found.
 */
export function relaySecrets(initial: Readonly<Record<string, string>>, tell: (name: string, secret: string | null) => void, fallback?: SecretStore): SecretStore {
  const secrets = new Map(Object.entries(initial));
  return {
    read: (name) => secrets.get(name) ?? fallback?.read(name),
    write: (name, secret) => {
      secrets.set(name, secret);
      tell(name, secret);
      fallback?.remove(name);
    },
    remove: (name) => {
      secrets.delete(name);
      tell(name, null);
      fallback?.remove(name);
    },
  };
}

/** Secrets kept in memory only (tokens handed over by the Electron main process). */
export function memorySecrets(initial: Readonly<Record<string, string>> = {}): SecretStore {
  const secrets = new Map(Object.entries(initial));
  return { read: (name) => secrets.get(name), write: (name, secret) => void secrets.set(name, secret), remove: (name) => void secrets.delete(name) };
}


function checkToken(token: string): void {
  if (!/^[\x21-\x7e]{1,128}$/.test(token)) throw new RemoteConfigError('the token must be 1 to 128 printable characters without spaces', 'token');
}

interface RemotesFile {
  remotes: Record<string, { url: string; insecure?: boolean; pin?: string }>;
}

export class Remotes {
  private readonly file: string;

  constructor(
    private readonly dataDir: string,
    private readonly secrets: SecretStore,
  ) {
    this.file = path.join(dataDir, 'remotes.json');
  }

  private read(): RemotesFile {
    if (!fs.existsSync(this.file)) return { remotes: {} };
    try {
      const parsed = JSON.parse(fs.readFileSync(this.file, 'utf8')) as RemotesFile;
      return parsed && typeof parsed.remotes === 'object' ? parsed : { remotes: {} };
    } catch (error) {
      throw new RemoteConfigError(`${this.file} is not valid JSON (${(error as Error).message}); fix or remove it`);
    }
  }

  private write(content: RemotesFile): void {
    replaceFile(this.file, JSON.stringify(content, null, 2) + '\n');
  }

  list(): RemoteConfig[] {
    return Object.entries(this.read().remotes).map(([name, r]) => ({ name, ...r }));
  }

  get(name: string): RemoteConfig | undefined {
    const found = this.read().remotes[name];
    return found ? { name, ...found } : undefined;
  }

  /** Add (or replace) a remote; returns a warning to show, if any. */
  add(config: RemoteConfig, token: string, options: { replace?: boolean } = {}): string | undefined {
    checkToken(token);
    return this.save(config, token, options);
  }

  /**
   * Change a remote's address or TLS settings. A token is bound to the origin it was given for:
   * when the scheme, host or port change, the stored token is dropped (unless a new one comes with
   * the change), so it is never sent to another server. Returns a warning to show, if any.
   */
  change(config: RemoteConfig, token: string | undefined): { warning: string | undefined; tokenCleared: boolean } {
    const existing = this.get(config.name);
    if (!existing) throw new RemoteConfigError(`there is no remote "${config.name}"`);
    if (token !== undefined) checkToken(token);
    const had = this.token(config.name);
    const kept = token ?? (sameOrigin(existing.url, config.url) ? had : undefined);
    const warning = this.save(config, kept, { replace: true });
    return { warning, tokenCleared: had !== undefined && kept === undefined };
  }

  private save(config: RemoteConfig, token: string | undefined, options: { replace?: boolean }): string | undefined {
    if (!NAME.test(config.name)) throw new RemoteConfigError(`"${config.name}" is not a valid remote name: 1 to 64 letters, digits, ".", "_" or "-"`, 'name');
    if (config.insecure && config.pin) throw new RemoteConfigError('either turn certificate verification off or pin the certificate, not both', 'pin');
    const checked = checkRemoteConfig(config);
    const content = this.read();
    if (content.remotes[config.name] && !options.replace) throw new RemoteConfigError(`a remote named "${config.name}" exists already`, 'name');
    content.remotes[config.name] = {
      url: checked.url.href.replace(/\/$/, ''),
      ...(config.insecure ? { insecure: true } : {}),
      ...(config.pin ? { pin: normalizeFingerprint(config.pin) } : {}),
    };
    if (token === undefined) this.secrets.remove(config.name);
    else this.secrets.write(config.name, token);
    this.write(content);
    return checked.warning;
  }

  token(name: string): string | undefined {
    return this.secrets.read(name);
  }

  setToken(name: string, token: string): void {
    if (!this.get(name)) throw new RemoteConfigError(`there is no remote "${name}"`);
    this.secrets.write(name, token);
  }

  remove(name: string): void {
    const content = this.read();
    delete content.remotes[name];
    this.write(content);
    this.secrets.remove(name);
  }

  get folder(): string {
    return this.dataDir;
  }
}
