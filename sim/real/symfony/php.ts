import { execFile, spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { promisify } from 'node:util';
import { createInterface } from 'node:readline';
import { PHP_DRIVER_PATH } from '../paths.js';
import { findBinary, findFile, MissingBinaryError } from '../harness/binaries.js';

/** What Symfony threw, by class and message. */
export interface PhpException {
  readonly class: string;
  readonly message: string;
  readonly previous?: string;
  /** Short class names, outermost first, as the script's catch would see them. */
  readonly chain?: readonly string[];
  /** The innermost cause's message. */
  readonly root?: string;
}

export interface PhpReply {
  readonly id?: number;
  readonly ok: boolean;
  readonly result?: unknown;
  readonly isAcquired?: boolean;
  readonly exception?: PhpException;
}

/** A store as the PHP driver builds it: Symfony's own classes over the real servers. */
export type PhpStore =
  | { readonly kind: 'redis' | 'memcached' | 'postgres' | 'sql'; readonly url: string }
  | { readonly kind: 'combined'; readonly strategy: 'consensus' | 'unanimous'; readonly stores: readonly PhpStore[] };

/** Where Debian's php-symfony-lock installs Symfony Lock; driver.php requires it from there. */
export const SYMFONY_LOCK_AUTOLOAD = '/usr/share/php/Symfony/Component/Lock/autoload.php';

/** The PHP extension each server's Symfony store talks through, and the Debian package that ships it. */
const PHP_EXTENSIONS: Readonly<Record<string, readonly [extension: string, debianPackage: string]>> = {
  redis: ['redis', 'php-redis'],
  memcached: ['memcached', 'php-memcached'],
  postgres: ['pdo_pgsql', 'php-pgsql'],
};

/**
 * Checks, before any server starts, that the Symfony clients of a run on
 * these servers can run: PHP, Symfony Lock and each store's PHP extension.
 * Fails with MissingBinaryError naming the Debian package of the first missing,
 * rather than let PHP fail later with a fatal error and its stack.
 */
export async function checkSymfonyInstalled(servers: readonly string[], autoload = SYMFONY_LOCK_AUTOLOAD): Promise<void> {
  const php = findBinary('php', 'php-cli');
  findFile([autoload], 'Symfony Lock', 'php-symfony-lock');
  let loaded: string[];
  try {
    // Asked without blocking: other real runs may be under way in this process, their faults timed to the millisecond.
    const { stdout } = await promisify(execFile)(php, ['-r', 'echo implode("\\n", get_loaded_extensions());'], { encoding: 'utf8', timeout: 10_000 });
    loaded = stdout.toLowerCase().split('\n');
  } catch (err) {
    throw new Error(`${php} could not list its extensions: ${(err as Error).message.split('\n')[0]}`, { cause: err });
  }
  for (const server of new Set(servers)) {
    const need = PHP_EXTENSIONS[server];
    if (need !== undefined && !loaded.includes(need[0])) throw new MissingBinaryError(`PHP's ${need[0]} extension`, need[1]);
  }
}

/** The driver script, shipped beside this module's source. */
export function driverPhp(): string {
  return PHP_DRIVER_PATH;
}

/** The short class name of a Symfony exception (LockConflictedException). */
export function shortClass(e: PhpException): string {
  return e.class.slice(e.class.lastIndexOf('\\') + 1);
}

/**
 * The PHP driver as a child process: one JSON line per step, one JSON line
 * per answer, in order. It runs in the client's process group, so a pause or
 * a crash of the client stops or kills PHP with it.
 */
export class PhpDriver {
  private readonly php: ChildProcessWithoutNullStreams;
  private readonly waiting: Array<(r: PhpReply) => void> = [];
  private nextId = 1;
  private exited: string | undefined;
  private stderr = '';

  constructor() {
    this.php = spawn(findBinary('php', 'php-cli'), [driverPhp()], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.php.stderr.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-2000);
    });
    createInterface({ input: this.php.stdout }).on('line', (line) => {
      const resolve = this.waiting.shift();
      try {
        resolve?.(JSON.parse(line) as PhpReply);
      } catch {
        resolve?.({ ok: false, exception: { class: 'JsonException', message: `the PHP driver wrote ${line.slice(0, 200)}` } });
      }
    });
    this.php.on('exit', (code, signal) => {
      this.exited = `the PHP driver exited (${signal ?? code})${this.stderr === '' ? '' : `: ${this.stderr.trim()}`}`;
      for (const resolve of this.waiting.splice(0)) resolve({ ok: false, exception: { class: 'DriverExited', message: this.exited } });
    });
    this.php.stdin.on('error', () => undefined);
  }

  private send(message: Record<string, unknown>): Promise<PhpReply> {
    if (this.exited !== undefined) return Promise.resolve({ ok: false, exception: { class: 'DriverExited', message: this.exited } });
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.php.stdin.write(`${JSON.stringify(message)}\n`);
    });
  }

  /** Builds the store; resolves once PHP has connected, or fails with Symfony's or PHP's own words. */
  async open(store: PhpStore, resource: string, client: string): Promise<void> {
    const r = (await this.send({ store, resource, client })) as PhpReply & { ready?: boolean };
    if (r.ready !== true)
      throw new Error(`Symfony Lock could not open its store: ${r.exception?.class ?? ''} ${r.exception?.message ?? this.exited ?? ''}`.trim());
  }

  step(step: string, owner: string, extra: Record<string, unknown> = {}): Promise<PhpReply> {
    return this.send({ id: this.nextId++, step, owner, ...extra });
  }

  /** Ends the script: PHP reads the end of its input and exits normally. Resolves once it has, or after `withinMs`. */
  async close(withinMs = 3_000): Promise<void> {
    this.php.stdin.end();
    if (this.php.exitCode !== null || this.php.signalCode !== null) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, withinMs);
      this.php.once('exit', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}
