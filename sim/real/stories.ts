import { normalizeScenario } from '../scenario/normalize.js';
import { applyOverrides, parseOverride } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import { BUILTIN_SCENARIOS } from '../scenarios/index.js';
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
  { scenario: 'sql-clock-skew', sets: ['store.clock=server'], libraries: ['node'] },
  { scenario: 'sql-clock-skew', sets: ['store.clock=server', 'store.database=postgresql'], libraries: ['node', 'symfony'] },
  { scenario: 'redlock-restart-without-delay', libraries: ['node'] },
  { scenario: 'etcd-revision-fencing', libraries: ['node'] },
  { scenario: 'combined-unanimous-node-down', libraries: ['node', 'symfony'] },
  { scenario: 'remaining-lifetime-refresh', libraries: ['node', 'symfony'] },
  { scenario: 'finally-after-exception', libraries: ['node', 'symfony'] },
  { scenario: 'auto-release-fork', libraries: ['node', 'symfony'] },
];

/** A built-in story with its overrides, as `locklab real NAME --set ...` plays it: the overrides apply to the whole normalized scenario, defaults included. */
export function storyScenario(name: string, sets: readonly string[] = []): Scenario {
  return applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
}
