import { closeSync, constants, existsSync, fstatSync, lstatSync, openSync, readSync, renameSync, rmSync, writeSync, type Stats } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
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
/**
 * The nearest folder above the command's own code (sim/cli in the sources,
 * dist/lib or one of its chunks once compiled) that holds `path`, joined
 * with it: where the repository or the installed package keeps a file of
 * its own; '' when none does.
 */
export function nearestOwnFile(path: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, path))) return join(dir, path);
    const up = dirname(dir);
    if (up === dir) return '';
    dir = up;
  }
}

/**
 * A scenario document as the text of a file to save in `dir` (two-space
 * JSON and a final newline): its `$schema` (first) the
 * path from there to the scenario schema of this command's repository or
 * installed package, so that an editor checks the file; a `$schema` it had
 * (the built-ins' path inside the repository) is replaced.
 */
export function scenarioFileText(doc: object, dir: string): string {
  const { $schema: _elsewhere, ...rest } = doc as Record<string, unknown>;
  const schema = nearestOwnFile(join('docs', 'schema', 'scenario.schema.json'));
  const linked =
    schema === ''
      ? rest
      : {
          $schema: relative(dir, schema)
            .split(sep)
            .join('/')
            .replace(/^(?!\.)/, './'),
          ...rest,
        };
  return `${JSON.stringify(linked, null, 2)}\n`;
}

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

/**
 * Reads a text file line by line, handing each line (without its newline)
 * to `onLine` with its number from 1: a JSON Lines trace of any length is
 * read in the memory of one line, which is held to maxTraceLineBytes. Only
 * a regular file is read, as readJsonFile does.
 */
export function readLines(file: string, onLine: (text: string, lineNo: number) => void): void {
  let fd: number;
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    throw new InputError(file, [{ path: '', message: errnoWords(err) }]);
  }
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const chunk = Buffer.allocUnsafe(1 << 20);
  let rest = '';
  let lineNo = 0;
  const tooLong = (): InputError =>
    new InputError(file, [
      { path: '', message: `line ${lineNo + 1} is more than ${grouped(LIMITS.maxTraceLineBytes)} bytes; ${limitText('maxTraceLineBytes')}` },
    ]);
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new InputError(file, [{ path: '', message: `is ${typeOf(st)}, expected a JSON Lines file` }]);
    for (;;) {
      const n = readSync(fd, chunk, 0, chunk.length, null);
      let text: string;
      try {
        text = decoder.decode(chunk.subarray(0, n), { stream: n > 0 });
      } catch {
        throw new InputError(file, [{ path: '', message: `is not UTF-8 text (near line ${lineNo + 1})` }]);
      }
      const lines = (rest + text).split('\n');
      rest = n === 0 ? '' : lines.pop()!;
      // The newline that ends the last line starts no line of its own.
      if (n === 0 && lines[lines.length - 1] === '') lines.pop();
      for (const line of lines) {
        if (line.length > LIMITS.maxTraceLineBytes) throw tooLong();
        onLine(line, ++lineNo);
      }
      if (rest.length > LIMITS.maxTraceLineBytes) throw tooLong();
      if (n === 0) break;
    }
  } catch (err) {
    if (err instanceof InputError) throw err;
    throw new InputError(file, [{ path: '', message: errnoWords(err) }]);
  } finally {
    closeSync(fd);
  }
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

/** The reason a write failed, in words, for the message naming the file. */
function writeFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR'
    ? 'its directory does not exist'
    : code === 'EACCES' || code === 'EPERM'
      ? 'permission denied'
      : code === 'EISDIR'
        ? 'is a directory'
        : code === 'ENOSPC'
          ? 'the disk is full'
          : `${code ?? (err as Error).message}`;
}

/**
 * A regular file written in parts and put in place at the end: the parts go
 * to a new temporary file beside it, renamed over the target by `commit`,
 * so a failure (or `abort`) never leaves a half-written file behind. A
 * target that exists and is not a regular file (a device, a FIFO, a
 * directory, a symbolic link) is refused rather than replaced.
 */
export class AtomicFile {
  private tmp = '';
  private fd: number | undefined;

  constructor(readonly file: string) {
    if (file === '') throw new InputError('--out', [{ path: '', message: 'expected a file name, got an empty one' }]);
    let mode = 0o666;
    try {
      const st = lstatSync(file);
      if (st.isSymbolicLink()) this.refuse('is a symbolic link; give the path of the file itself');
      if (!st.isFile()) this.refuse(`is ${typeOf(st)}, not a regular file`);
      mode = st.mode & 0o777;
    } catch (err) {
      if (err instanceof InputError) throw err;
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT') this.refuse(code === 'ENOTDIR' ? 'its directory does not exist' : errnoWords(err));
    }
    const dir = dirname(file);
    try {
      if (lstatSync(dir, { throwIfNoEntry: false }) === undefined) this.refuse('its directory does not exist');
      for (let attempt = 0; this.fd === undefined; attempt++) {
        const tmp = join(dir, `.${basename(file)}.${process.pid}.${attempt}.tmp`);
        try {
          this.fd = openSync(tmp, 'wx', mode);
          this.tmp = tmp;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 100) throw err;
        }
      }
    } catch (err) {
      if (err instanceof InputError) throw err;
      this.refuse(writeFailure(err));
    }
  }

  /** Appends `text` to the file. */
  write(text: string): void {
    if (this.fd === undefined) return;
    try {
      let buf = Buffer.from(text, 'utf8');
      while (buf.length > 0) buf = buf.subarray(writeSync(this.fd, buf));
    } catch (err) {
      this.abort();
      this.refuse(writeFailure(err));
    }
  }

  /** Puts the file in place, whole. */
  commit(): void {
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
      this.fd = undefined;
      renameSync(this.tmp, this.file);
      this.tmp = '';
    } catch (err) {
      this.abort();
      this.refuse(writeFailure(err));
    }
  }

  /** Gives up: the temporary file goes, and the target is left as it was. */
  abort(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    if (this.tmp !== '') rmSync(this.tmp, { force: true });
    this.tmp = '';
  }

  private refuse(why: string): never {
    throw new InputError(this.file, [{ path: '', message: `cannot write: ${why}` }]);
  }
}

/** Writes a regular file all at once (see AtomicFile). */
export function writeFileAtomic(file: string, content: string): void {
  const f = new AtomicFile(file);
  f.write(content);
  f.commit();
}
