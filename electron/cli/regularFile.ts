/**
 * A file the user names to a command (a plan file, a decisions file), read as untrusted input:
 * only a regular file, opened without blocking (a FIFO would wait for a writer for ever) and read
 * up to a bound (a symlink to /dev/zero has no end; fstat says it is no regular file).
 */
import fs from 'node:fs';

export class FileRefused extends Error {}

/** The bytes of regular file `file`, at most `maxBytes`; FileRefused says why not (a system error is thrown as it is). */
export function readRegularFile(file: string, maxBytes: number): Buffer {
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0));
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile()) throw new FileRefused('it is not a regular file');
    if (stat.size > maxBytes) throw new FileRefused(`it is larger than ${maxBytes / (1024 * 1024)} MiB`);
    // One byte more than allowed: a file that grows while read is refused, not cut.
    const bytes = Buffer.alloc(Math.min(stat.size, maxBytes) + 1);
    let read = 0;
    while (read < bytes.length) {
      const n = fs.readSync(fd, bytes, read, bytes.length - read, read);
      if (n === 0) break;
      read += n;
    }
    if (read > maxBytes) throw new FileRefused(`it is larger than ${maxBytes / (1024 * 1024)} MiB`);
    return bytes.subarray(0, read);
  } finally {
    fs.closeSync(fd);
  }
}
