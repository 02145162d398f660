import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from '../errors.js';
import { parseJson, textOfBytes, type JsonKind } from '../json.js';
import { grouped, LIMITS, limitText } from '../scenario/limits.js';

/** What a file that is not a regular file is, in words. */
function typeOf(st: Stats): string {
  if (st.isDirectory()) return 'a directory';
  if (st.isFIFO()) return 'a named pipe (FIFO)';
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

function errnoWords(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'ENOTDIR':
      return 'a part of the path is not a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'ENAMETOOLONG':
      return 'the file name is too long';
    default:
      return `cannot be read (${code ?? (err as Error).message})`;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Reads and parses a JSON file, turning every failure into a message that
 * names the file. Only a regular file is read, and only up to the size limit
 * of its kind: a FIFO, a device such as /dev/zero or an endless /proc file is
 * refused before it can block or exhaust memory. The file is opened without
 * blocking and checked on the open descriptor, so what is checked is what is
 * read.
 */
export function readJsonFile(file: string, kind: JsonKind = 'scenario'): unknown {
  const limit = kind === 'trace' ? 'maxTraceBytes' : 'maxScenarioBytes';
  const maxBytes = LIMITS[limit];
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new InputError(file, [{ path: '', message: errnoWords(err) }]);
  }
  let bytes: Buffer;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(file, [{ path: '', message: `is ${typeOf(st)}, expected a JSON file` }]);
    if (st.size > maxBytes) throw new InputError(file, [{ path: '', message: `is ${grouped(st.size)} bytes; ${limitText(limit)}` }]);
    bytes = readUpTo(fd, file, maxBytes, limit, st.size);
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, [{ path: '', message: errnoWords(err) }]);
  } finally {
    closeSync(fd);
  }
  return parseJson(
    textOfBytes(bytes, file, kind, (b) => UTF8.decode(b)),
    file,
    kind,
  );
}

/** Reads at most `maxBytes` (a file whose size said 0, like those under /proc, may still have more). */
function readUpTo(fd: number, file: string, maxBytes: number, limit: 'maxTraceBytes' | 'maxScenarioBytes', sizeHint: number): Buffer {
  let buf = Buffer.allocUnsafe(Math.min(maxBytes + 1, Math.max(sizeHint + 1, 65_536)));
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      const bigger = Buffer.allocUnsafe(Math.min(maxBytes + 1, buf.length * 2));
      buf.copy(bigger, 0, 0, length);
      buf = bigger;
    }
    const n = readSync(fd, buf, length, buf.length - length, null);
    if (n === 0) break;
    length += n;
    if (length > maxBytes) throw new InputError(file, [{ path: '', message: `is more than ${grouped(maxBytes)} bytes; ${limitText(limit)}` }]);
  }
  return buf.subarray(0, length);
}

/**
 * Writes a regular file all at once: to a new temporary file beside it, then
 * renamed over the target, so a failure never leaves a half-written file
 * behind. A target that exists and is not a regular file (a device, a FIFO, a
 * directory, a symbolic link) is refused rather than replaced.
 */
export function writeFileAtomic(file: string, content: string): void {
  const refuse = (why: string): never => {
    throw new InputError(file, [{ path: '', message: `cannot write: ${why}` }]);
  };
  if (file === '') throw new InputError('--out', [{ path: '', message: 'expected a file name, got an empty one' }]);
  let mode = 0o666;
  try {
    const st = lstatSync(file);
    if (st.isSymbolicLink()) refuse('is a symbolic link; give the path of the file itself');
    if (!st.isFile()) refuse(`is ${typeOf(st)}, not a regular file`);
    mode = st.mode & 0o777;
  } catch (err) {
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') refuse(code === 'ENOTDIR' ? 'its directory does not exist' : errnoWords(err));
  }
  const dir = dirname(file);
  let tmp = '';
  let created = false;
  let fd: number | undefined;
  try {
    const dirStat = lstatSync(dir, { throwIfNoEntry: false });
    if (dirStat === undefined) refuse('its directory does not exist');
    for (let attempt = 0; fd === undefined; attempt++) {
      tmp = join(dir, `.${basename(file)}.${process.pid}.${attempt}.tmp`);
      try {
        fd = openSync(tmp, 'wx', mode);
        created = true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw err;
      }
    }
    let buf = Buffer.from(content, 'utf8');
    while (buf.length > 0) buf = buf.subarray(writeSync(fd, buf));
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    if (created) rmSync(tmp, { force: true });
    if (err instanceof InputError) throw err;
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT' || code === 'ENOTDIR'
        ? 'its directory does not exist'
        : code === 'EACCES' || code === 'EPERM'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : code === 'ENOSPC'
              ? 'the disk is full'
              : `${code ?? (err as Error).message}`;
    refuse(why);
  }
}
