import { EtcdServer, type EtcdOptions } from './etcd.js';
import { MemcachedServer, type MemcachedOptions } from './memcached.js';
import { PostgresServer, type PostgresOptions } from './postgres.js';
import { RedisServer, type RedisOptions } from './redis.js';
import type { Server } from './server.js';
import { startZooKeeper, startZooKeeperEnsemble, type ZooKeeperOptions, type ZooKeeperServer } from './zookeeper.js';

export { MissingBinaryError } from './binaries.js';
export { janitor } from './cleanup.js';
export { ServerError } from './server-process.js';
export { Server, ServerClock } from './server.js';
export { EtcdServer, MemcachedServer, PostgresServer, RedisServer };
export { ensembleUrl, ZooKeeperServer } from './zookeeper.js';

/**
 * Starts throwaway servers and stops every one of them on `close()`. Each
 * lives on a free 127.0.0.1 port in a temporary directory of its own; the
 * janitor also stops them if the process is interrupted or dies.
 */
export class Harness {
  private readonly servers: Server[] = [];

  private keep<T extends Server>(s: T): T {
    this.servers.push(s);
    return s;
  }

  async redis(opts?: RedisOptions): Promise<RedisServer> {
    return this.keep(await RedisServer.start(opts));
  }

  /** Several independent Redis servers (Redlock, Combined), started together. */
  async redisNodes(n: number, opts: RedisOptions = {}): Promise<RedisServer[]> {
    const base = opts.name ?? 'redis';
    return Promise.all(Array.from({ length: n }, (_, i) => this.redis({ ...opts, name: `${base}${i + 1}` })));
  }

  async memcached(opts?: MemcachedOptions): Promise<MemcachedServer> {
    return this.keep(await MemcachedServer.start(opts));
  }

  async postgres(opts?: PostgresOptions): Promise<PostgresServer> {
    return this.keep(await PostgresServer.start(opts));
  }

  async zookeeper(opts?: ZooKeeperOptions): Promise<ZooKeeperServer> {
    return this.keep(await startZooKeeper(opts));
  }

  async zookeeperEnsemble(size = 3, opts?: ZooKeeperOptions): Promise<ZooKeeperServer[]> {
    return (await startZooKeeperEnsemble(size, opts)).map((s) => this.keep(s));
  }

  async etcd(opts?: EtcdOptions): Promise<EtcdServer> {
    return this.keep(await EtcdServer.start(opts));
  }

  get started(): readonly Server[] {
    return this.servers;
  }

  /** Kills every server this harness started and removes their directories. */
  async close(): Promise<void> {
    const all = this.servers.splice(0);
    await Promise.all(all.map((s) => s.close()));
  }
}
