import { join } from 'node:path';
import { findBinary } from './binaries.js';
import { freePorts } from './ports.js';
import { Server, tempDir } from './server.js';
import { ServerProcess } from './server-process.js';

export interface EtcdOptions {
  readonly name?: string;
}

async function healthy(port: number): Promise<boolean> {
  const r = await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
  const body = (await r.json()) as { health?: string };
  return body.health === 'true';
}

/**
 * A throwaway single-member etcd on free loopback ports. Leases are timed on
 * Go's monotonic clock, which libfaketime cannot reach, so its clock is not
 * stepped.
 */
export class EtcdServer extends Server {
  readonly kind = 'etcd';
  readonly name: string;
  protected readonly proc: ServerProcess;
  protected readonly dir: string;

  private constructor(
    readonly port: number,
    peerPort: number,
    opts: EtcdOptions,
  ) {
    super();
    this.name = opts.name ?? 'etcd';
    const binary = findBinary('etcd', 'etcd-server');
    this.dir = tempDir('etcd');
    const client = `http://127.0.0.1:${port}`;
    const peer = `http://127.0.0.1:${peerPort}`;
    const args = [
      '--name',
      'n1',
      '--data-dir',
      join(this.dir, 'data'),
      '--listen-client-urls',
      client,
      '--advertise-client-urls',
      client,
      '--listen-peer-urls',
      peer,
      '--initial-advertise-peer-urls',
      peer,
      '--initial-cluster',
      `n1=${peer}`,
      '--logger',
      'zap',
      '--log-outputs',
      'stderr',
    ];
    this.proc = new ServerProcess(
      `etcd ${this.name} on 127.0.0.1:${port}`,
      () => ({ command: binary, args, cwd: this.dir, logFile: join(this.dir, 'etcd.log') }),
      () => healthy(port),
    );
  }

  static async start(opts: EtcdOptions = {}): Promise<EtcdServer> {
    const [port, peerPort] = await freePorts(2);
    const s = new EtcdServer(port!, peerPort!, opts);
    await s.start();
    return s;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }
}
