/**
 * HTTPS material: a given certificate and key, or a self-signed pair made once and kept in the
 * data folder (files 0600) so that a browser exception survives restarts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { replaceFile } from '../store/storageErrors';

export interface TlsMaterial {
  readonly cert: string;
  readonly key: string;
}

export function readTls(certFile: string, keyFile: string): TlsMaterial {
  const read = (file: string, what: string) => {
    try {
      return fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new Error(`cannot read the ${what} ${file}: ${(error as Error).message}`);
    }
  };
  const cert = read(certFile, 'certificate');
  const key = read(keyFile, 'key');
  if (!cert.includes('-----BEGIN CERTIFICATE-----')) throw new Error(`${certFile} is not a PEM certificate`);
  if (!/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(key)) throw new Error(`${keyFile} is not a PEM private key`);
  return { cert, key };
}

export async function selfSignedTls(dataDir: string, host: string): Promise<TlsMaterial> {
  const certFile = path.join(dataDir, 'tls', 'self-signed.crt');
  const keyFile = path.join(dataDir, 'tls', 'self-signed.key');
  if (fs.existsSync(certFile) && fs.existsSync(keyFile)) return readTls(certFile, keyFile);
  const notAfter = new Date();
  notAfter.setFullYear(notAfter.getFullYear() + 5);
  const altNames = [
    { type: 2 as const, value: 'localhost' },
    { type: 7 as const, ip: '127.0.0.1' },
    { type: 7 as const, ip: '::1' },
    ...(host && !['127.0.0.1', '::1', 'localhost', '0.0.0.0', '::'].includes(host)
      ? [/^[\d.]+$|:/.test(host) ? { type: 7 as const, ip: host } : { type: 2 as const, value: host }]
      : []),
  ];
  // Loaded when a certificate is made, not by every command.
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'Outpost' }], {
    keyType: 'ec',
    curve: 'P-256',
    algorithm: 'sha256',
    notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
      { name: 'extKeyUsage', serverAuth: true },
      { name: 'subjectAltName', altNames },
    ],
  });
  fs.mkdirSync(path.dirname(certFile), { recursive: true, mode: 0o700 });
  // Whole or not at all, and a full or read-only disk told with the file (store/storageErrors.ts).
  replaceFile(keyFile, pems.private);
  replaceFile(certFile, pems.cert);
  return { cert: pems.cert, key: pems.private };
}
