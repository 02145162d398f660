import { join } from 'node:path';
import { findBinary } from './binaries.js';
import { ask, freePort } from './ports.js';
import { Server, tempDir } from './server.js';
import { ServerProcess } from './server-process.js';

export interface MemcachedOptions {
  readonly name?: string;
  /** Memory limit in MiB (memcached's -m). */
  readonly memoryMb?: number;
  /** -M: refuse writes when memory is full instead of evicting by LRU. */
  readonly noEviction?: boolean;
}

/**
 * A throwaway memcached on a free loopback port. Its expiry runs on its own
 * clock counted from its start (monotonic), so it cannot be stepped.
 */
export class MemcachedServer extends Server {
  readonly kind = 'memcached';
  readonly name: string;
  protected readonly proc: ServerProcess;
  protected readonly dir: string;

  private constructor(
    readonly port: number,
    opts: MemcachedOptions,
  ) {
    super();
    this.name = opts.name ?? 'memcached';
    const binary = findBinary('memcached', 'memcached');
    this.dir = tempDir('memcached');
    const args = ['-l', '127.0.0.1', '-p', String(port), '-U', '0', '-m', String(opts.memoryMb ?? 64), '-c', '1024'];
    if (opts.noEviction === true) args.push('-M');
    // memcached refuses to run as root unless told which user to become.
    if (process.getuid?.() === 0) args.push('-u', 'nobody');
    this.proc = new ServerProcess(
      `memcached ${this.name} on 127.0.0.1:${port}`,
      () => ({ command: binary, args, cwd: this.dir, logFile: join(this.dir, 'memcached.log') }),
      async () => (await ask(port, 'version\r\n', 500)).startsWith('VERSION'),
    );
  }

  static async start(opts: MemcachedOptions = {}): Promise<MemcachedServer> {
    const s = new MemcachedServer(await freePort(), opts);
    await s.start();
    return s;
  }

  get url(): string {
    return `memcached://127.0.0.1:${this.port}`;
  }
}
