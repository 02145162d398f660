import { execFileSync } from 'node:child_process';
import { findBinary, POSTGRES_DIRS } from './harness/binaries.js';
import type { ServerKind } from './nodes.js';

function run(program: string, args: readonly string[]): string {
  try {
    return execFileSync(program, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 10_000 });
  } catch (err) {
    return String((err as { stdout?: string }).stdout ?? '');
  }
}

function debianVersion(pkg: string): string | undefined {
  const v = run('dpkg-query', ['-W', '-f=${Version}', pkg]).trim();
  return v === '' ? undefined : v;
}

/** The version of each server program, as a person would name it ("Redis 7.0.15"). */
export function serverVersion(kind: ServerKind): string {
  switch (kind) {
    case 'redis':
      return `Redis ${/v=([\d.]+)/.exec(run(findBinary('redis-server', 'redis-server'), ['--version']))?.[1] ?? '?'}`;
    case 'memcached':
      return `memcached ${/memcached ([\d.]+)/.exec(run(findBinary('memcached', 'memcached'), ['-V']))?.[1] ?? '?'}`;
    case 'postgres':
      return `PostgreSQL ${/([\d.]+)/.exec(run(findBinary('postgres', 'postgresql', POSTGRES_DIRS), ['--version']))?.[1] ?? '?'}`;
    case 'zookeeper':
      return `ZooKeeper ${(debianVersion('zookeeper') ?? '?').replace(/-.*$/, '')}`;
    case 'etcd':
      return `etcd ${/etcd Version: ([\d.]+)/.exec(run(findBinary('etcd', 'etcd-server'), ['--version']))?.[1] ?? '?'}`;
  }
}

/** "Symfony Lock 5.4.x" from Debian's package. */
export function symfonyVersion(): string {
  return `Symfony Lock ${(debianVersion('php-symfony-lock') ?? '5.4').replace(/\+.*$/, '').replace(/-.*$/, '')}`;
}
