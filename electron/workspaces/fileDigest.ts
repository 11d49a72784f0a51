/**
 * The SHA-256 of the bytes an import read of a file (issue 24 §2: a visit names its files so that
 * the engineer can prove which log a report came from). Read again after the import read them,
 * a megabyte at a time from the page cache: about a second per gigabyte, on the import's thread.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';

const CHUNK = 1024 * 1024;

/** SHA-256 (hex) of [from, to) of an open file. */
export function digestRange(fd: number, from: number, to: number): string {
  const hash = createHash('sha256');
  const buffer = Buffer.allocUnsafe(CHUNK);
  for (let at = from; at < to; ) {
    const read = fs.readSync(fd, buffer, 0, Math.min(CHUNK, to - at), at);
    if (read === 0) break;
    hash.update(buffer.subarray(0, read));
    at += read;
  }
  return hash.digest('hex');
}

/** A whole file's size and SHA-256 (hex). */
export function digestFile(file: string): { size: number; sha256: string } {
  const fd = fs.openSync(file, 'r');
  try {
    const { size } = fs.fstatSync(fd);
    return { size, sha256: digestRange(fd, 0, size) };
  } finally {
    fs.closeSync(fd);
  }
}
