import type { ClientLibrary } from './ipc.js';

/**
 * The stories whose real counterpart Locklab plays and checks: each with the
 * clients that can play it for real. Symfony Lock is left out where it
 * cannot: it gives no fencing token (the fenced variant), Debian packages no
 * php-zookeeper, and it has no Redlock or etcd store.
 */
export const REAL_STORIES: ReadonlyArray<{ scenario: string; sets?: readonly string[]; libraries: readonly ClientLibrary[] }> = [
  { scenario: 'pause-past-expiry', libraries: ['node', 'symfony'] },
  { scenario: 'pause-past-expiry', sets: ['resource.fencing=true'], libraries: ['node'] },
  { scenario: 'crash-without-release', libraries: ['node', 'symfony'] },
  { scenario: 'redis-restart-without-persistence', libraries: ['node', 'symfony'] },
  { scenario: 'memcached-restart', libraries: ['node', 'symfony'] },
  { scenario: 'postgres-connection-loss', libraries: ['node', 'symfony'] },
  { scenario: 'zookeeper-session-expiry', libraries: ['node'] },
  { scenario: 'sql-clock-skew', sets: ['store.clock=server'], libraries: ['node', 'symfony'] },
  { scenario: 'redlock-restart-without-delay', libraries: ['node'] },
  { scenario: 'etcd-revision-fencing', libraries: ['node'] },
  { scenario: 'combined-unanimous-node-down', libraries: ['node', 'symfony'] },
];
