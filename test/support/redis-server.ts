import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A free TCP port on 127.0.0.1, as the kernel hands one out. */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A throwaway redis-server on loopback, in its own temporary directory, that keeps nothing on disk. */
export class RedisServer {
  private constructor(
    private readonly child: ChildProcess,
    private readonly dir: string,
    readonly port: number,
  ) {}

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  static async start(): Promise<RedisServer> {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'locklab-redis-'));
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes'],
      {
        stdio: 'ignore',
      },
    );
    const server = new RedisServer(child, dir, port);
    const failed = new Promise<never>((_, reject) => child.once('error', (e) => reject(new Error(`cannot start redis-server: ${e.message} (run .ci/setup)`))));
    await Promise.race([server.ready(), failed]);
    return server;
  }

  /** Waits, at most 10 s, until the server answers PING. */
  private async ready(): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const c = new Redis({
        host: '127.0.0.1',
        port: this.port,
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        enableOfflineQueue: false,
      });
      c.on('error', () => undefined);
      try {
        await c.connect();
        if ((await c.ping()) === 'PONG') return;
      } catch {
        // Not listening yet.
      } finally {
        c.disconnect();
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`redis-server on port ${this.port} did not answer within 10 s`);
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((r) => this.child.once('exit', () => r()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
