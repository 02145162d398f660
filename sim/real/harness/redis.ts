import { join } from 'node:path';
import { findBinary } from './binaries.js';
import { ask, freePort } from './ports.js';
import { Server, tempDir } from './server.js';
import { ServerProcess } from './server-process.js';

export interface RedisOptions {
  readonly name?: string;
  /** What survives a crash: nothing, the AOF fsynced every second, or every write. */
  readonly persistence?: 'none' | 'aof-everysec' | 'aof-always';
}

/**
 * A throwaway redis-server on a free loopback port, keyspace events on,
 * active expiry at 100 Hz. Its clock cannot be stepped: Debian's build uses
 * jemalloc, which libfaketime cannot be preloaded beside (it aborts at start
 * with "unexpected recursive calls to clock_gettime()").
 */
export class RedisServer extends Server {
  readonly kind = 'redis';
  readonly name: string;
  protected readonly proc: ServerProcess;
  protected readonly dir: string;

  private constructor(
    readonly port: number,
    opts: RedisOptions,
  ) {
    super();
    this.name = opts.name ?? 'redis';
    const binary = findBinary('redis-server', 'redis-server');
    this.dir = tempDir('redis');
    const persistence = opts.persistence ?? 'none';
    const args = [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      this.dir,
      '--save',
      '',
      '--appendonly',
      persistence === 'none' ? 'no' : 'yes',
      '--appendfsync',
      persistence === 'aof-always' ? 'always' : 'everysec',
      '--hz',
      '100',
      '--notify-keyspace-events',
      'KEA',
      '--daemonize',
      'no',
      '--protected-mode',
      'no',
      '--maxclients',
      '1000',
      '--logfile',
      '',
    ];
    this.proc = new ServerProcess(
      `redis-server ${this.name} on 127.0.0.1:${port}`,
      () => ({ command: binary, args, cwd: this.dir, logFile: join(this.dir, 'redis.log') }),
      async () => (await ask(port, 'PING\r\n', 500)).startsWith('+PONG'),
    );
  }

  static async start(opts: RedisOptions = {}): Promise<RedisServer> {
    const s = new RedisServer(await freePort(), opts);
    await s.start();
    return s;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }
}
