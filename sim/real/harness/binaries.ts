import { accessSync, constants } from 'node:fs';
import { join } from 'node:path';

/** A server program the harness needs and is missing: the message is one line naming the Debian package. */
export class MissingBinaryError extends Error {
  constructor(
    readonly program: string,
    readonly debianPackage: string,
  ) {
    super(`${program} was not found: install Debian's ${debianPackage} package (apt-get install ${debianPackage})`);
    this.name = 'MissingBinaryError';
  }
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function readable(path: string): boolean {
  try {
    accessSync(path, constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** Finds `program` on PATH or in `dirs`, or throws naming the Debian package that ships it. */
export function findBinary(program: string, debianPackage: string, dirs: readonly string[] = []): string {
  const path = (process.env.PATH ?? '').split(':').filter((d) => d !== '');
  for (const dir of [...dirs, ...path, '/usr/sbin', '/usr/bin']) {
    const candidate = join(dir, program);
    if (executable(candidate)) return candidate;
  }
  throw new MissingBinaryError(program, debianPackage);
}

/** Finds a file a server needs (a jar, a library), or throws naming its Debian package. */
export function findFile(candidates: readonly string[], what: string, debianPackage: string): string {
  for (const c of candidates) if (readable(c)) return c;
  throw new MissingBinaryError(what, debianPackage);
}

/** PostgreSQL's server programs live outside PATH, under one directory per major version. */
export const POSTGRES_DIRS = ['/usr/lib/postgresql/17/bin', '/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin'];

/** libfaketime, which steps a server's wall clock while it runs. */
export function faketimeLibrary(): string {
  return findFile(
    ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/faketime/libfaketime.so.1'],
    'libfaketime',
    'faketime',
  );
}
