/**
 * Remote tokens at rest in the desktop app (app.md §2): encrypted with Electron's safeStorage
 * (the OS keychain, DPAPI or libsecret) into `<data>/remotes/<name>.token.enc`, mode 0600. The
 * main process decrypts them for the server process at its start and encrypts what it sends
 * back; the renderer never sees one.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { SafeStorage } from 'electron';
import { replaceFile } from '../server/store/storageErrors';

export type SafeStorageLike = Pick<SafeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'>;

const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;
const SUFFIX = '.token.enc';

export class SecretVault {
  private readonly dir: string;

  constructor(
    dataDir: string,
    private readonly safeStorage: SafeStorageLike,
    private readonly warn: (line: string) => void = () => {},
  ) {
    this.dir = path.join(dataDir, 'remotes');
  }

  /** Every stored token, decrypted; one that cannot be decrypted (another user's keychain) is skipped with a warning. */
  loadAll(): Record<string, string> {
    if (!fs.existsSync(this.dir)) return {};
    const out: Record<string, string> = {};
    for (const file of fs.readdirSync(this.dir)) {
      if (!file.endsWith(SUFFIX)) continue;
      const name = file.slice(0, -SUFFIX.length);
      if (!NAME.test(name)) continue;
      try {
        out[name] = this.safeStorage.decryptString(fs.readFileSync(path.join(this.dir, file)));
      } catch (error) {
        this.warn(`the token of remote "${name}" cannot be decrypted (${(error as Error).message}); set it again in Settings`);
      }
    }
    return out;
  }

  store(name: string, secret: string): void {
    if (!NAME.test(name)) throw new Error(`"${name}" is not a remote name`);
    fs.mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    replaceFile(path.join(this.dir, `${name}${SUFFIX}`), this.safeStorage.encryptString(secret));
  }

  remove(name: string): void {
    if (!NAME.test(name)) return;
    fs.rmSync(path.join(this.dir, `${name}${SUFFIX}`), { force: true });
  }
}
