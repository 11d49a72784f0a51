/** Remote tokens at rest in the desktop app (app.md §2): safeStorage, 0600, never plain. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SecretVault } from '../../electron/main/secretVault';
import { parseServerMessage, parseSupervisorMessage } from '../../electron/main/serverMessages';
import { relaySecrets, fileSecrets } from '../../electron/remote/remotes';

const sealing = {
  isEncryptionAvailable: () => true,
  encryptString: (text: string) => Buffer.from(`sealed:${Buffer.from(text).toString('hex')}`),
  decryptString: (data: Buffer) => {
    const text = data.toString();
    if (!text.startsWith('sealed:')) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return Buffer.from(text.slice(7), 'hex').toString();
  },
};

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outpost-vault-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('the secret vault', () => {
  test('stores each token sealed in a 0600 file and reads every one back', () => {
    const vault = new SecretVault(dir, sealing);
    vault.store('central', 'token-one');
    vault.store('lab.2', 'token-two');
    const file = path.join(dir, 'remotes', 'central.token.enc');
    expect(fs.readFileSync(file, 'utf8')).not.toContain('token-one');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.statSync(path.join(dir, 'remotes')).mode & 0o777).toBe(0o700);
    expect(new SecretVault(dir, sealing).loadAll()).toEqual({ central: 'token-one', 'lab.2': 'token-two' });
    vault.remove('central');
    expect(vault.loadAll()).toEqual({ 'lab.2': 'token-two' });
  });

  test('a token that cannot be decrypted is skipped with a warning naming the remote', () => {
    fs.mkdirSync(path.join(dir, 'remotes'));
    fs.writeFileSync(path.join(dir, 'remotes', 'other.token.enc'), 'garbage');
    const warnings: string[] = [];
    expect(new SecretVault(dir, sealing, (line) => warnings.push(line)).loadAll()).toEqual({});
    expect(warnings[0]).toMatch(/remote "other" cannot be decrypted/);
  });

  test('refuses a name that is not a remote name (no path tricks)', () => {
    expect(() => new SecretVault(dir, sealing).store('../evil', 'x')).toThrow(/not a remote name/);
  });
});

describe('the relay between the server process and the main process', () => {
  test('the server reads tokens handed over, tells the main process of changes, and still finds a CLI-written token', () => {
    const told: [string, string | null][] = [];
    const files = fileSecrets(dir);
    files.write('cli', 'from-the-cli');
    const store = relaySecrets({ central: 'handed' }, (name, secret) => told.push([name, secret]), files);
    expect(store.read('central')).toBe('handed');
    expect(store.read('cli')).toBe('from-the-cli');
    store.write('cli', 'replaced');
    expect(store.read('cli')).toBe('replaced');
    expect(files.read('cli')).toBeUndefined();
    store.remove('central');
    expect(store.read('central')).toBeUndefined();
    expect(told).toEqual([
      ['cli', 'replaced'],
      ['central', null],
    ]);
  });

  test('messages are checked: bad names or tokens are dropped', () => {
    expect(parseServerMessage({ type: 'secret', name: 'central', secret: 'abc' })).toEqual({ type: 'secret', name: 'central', secret: 'abc' });
    expect(parseServerMessage({ type: 'secret', name: 'central', secret: null })).toEqual({ type: 'secret', name: 'central', secret: null });
    expect(parseServerMessage({ type: 'secret', name: '../x', secret: 'abc' })).toBeUndefined();
    expect(parseServerMessage({ type: 'secret', name: 'central', secret: 'with space' })).toBeUndefined();
    expect(parseSupervisorMessage({ type: 'secrets', secrets: { central: 'abc', '../x': 'y', lab: 5 } })).toEqual({ type: 'secrets', secrets: { central: 'abc' } });
  });
});
