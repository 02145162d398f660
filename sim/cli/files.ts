import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { InputError } from '../errors.js';
import { parseJson } from '../json.js';

/** Reads and parses a JSON file, turning every failure into a message that names the file. */
export function readJsonFile(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'is a directory, expected a JSON file'
          : code === 'EACCES'
            ? 'permission denied'
            : String((err as Error).message);
    throw new InputError(file, [{ path: '', message: why }]);
  }
  return parseJson(text, file);
}

/**
 * Writes a file all at once: to a temporary file beside it, then renamed over
 * the target, so a failure never leaves a half-written file behind.
 */
export function writeFileAtomic(file: string, content: string): void {
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.tmp`);
  try {
    writeFileSync(tmp, content);
    renameSync(tmp, file);
  } catch (err) {
    rmSync(tmp, { force: true });
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'its directory does not exist'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (err as Error).message;
    throw new InputError(file, [{ path: '', message: `cannot write: ${why}` }]);
  }
}
