import type { Scenario, StoreSpecBase } from '../scenario/types.js';
import { strategyQuorum } from '../stores/combined.js';
import { majority } from '../stores/redlock.js';
import { EtcdNode } from './adapters/etcd.js';
import { MemcachedNode } from './adapters/memcached.js';
import { PostgresAdvisoryNode } from './adapters/postgres.js';
import { RedisNode } from './adapters/redis.js';
import { SqlTableNode, type TableDatabase } from './adapters/sql-table.js';
import type { RealNode } from './adapters/types.js';
import { ZooKeeperNode } from './adapters/zookeeper.js';

/** The server program a node runs on. */
export type ServerKind = 'redis' | 'memcached' | 'postgres' | 'zookeeper' | 'etcd';

/** How a scenario's store node is served for real: which server, set up how, spoken to how. */
export type Persistence = 'none' | 'aof-everysec' | 'aof-always';

export interface ServerNeed {
  /** The node's name in the scenario and the trace. */
  readonly node: string;
  /** The scenario machine it lives on. */
  readonly machine: string;
  readonly server: ServerKind;
  readonly protocol: 'redis' | 'redlock' | 'memcached' | 'advisory' | 'table' | 'zookeeper' | 'zookeeper-recipe' | 'etcd';
  readonly persistence?: Persistence;
  readonly tickMs?: number;
  /** Needs a wall clock the harness can step (a clock-jump fault aimed at its machine). */
  readonly clock?: boolean;
  /** Memory for memcached, in MiB. */
  readonly memoryMb?: number;
  /** A lock table's database, which decides how the server's "now" becomes whole seconds. */
  readonly database?: TableDatabase;
}

/** A scenario the real runner cannot play: the message says which part and why. */
export class UnsupportedScenarioError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`${path}: ${why}`);
    this.name = 'UnsupportedScenarioError';
  }
}

function str(spec: StoreSpecBase, field: string): string {
  return spec[field] as string;
}

function needsOf(spec: StoreSpecBase, path: string, jumped: ReadonlySet<string>): ServerNeed[] {
  const machine = str(spec, 'machine');
  switch (spec.kind) {
    case 'redis':
      return [{ node: spec.name, machine, server: 'redis', protocol: 'redis', persistence: spec.persistence as Persistence }];
    case 'memcached':
      return [{ node: spec.name, machine, server: 'memcached', protocol: 'memcached', memoryMb: Math.max(64, Math.ceil(Number(spec.memoryBytes) / 2 ** 20)) }];
    case 'postgres':
      return [{ node: spec.name, machine, server: 'postgres', protocol: 'advisory' }];
    case 'sql':
      if (spec.primaries !== null && spec.primaries !== undefined) {
        throw new UnsupportedScenarioError(`${path}.primaries`, 'the real runner serves one database node; multi-primary replication is simulated only');
      }
      return [
        {
          node: spec.name,
          machine,
          server: 'postgres',
          protocol: 'table',
          clock: jumped.has(machine),
          database: (spec.database as TableDatabase | undefined) ?? 'mysql',
        },
      ];
    case 'zookeeper':
    case 'zookeeper-recipe':
      return [{ node: spec.name, machine, server: 'zookeeper', protocol: spec.kind, tickMs: Number(spec.tickMs) }];
    case 'etcd':
      return [{ node: spec.name, machine, server: 'etcd', protocol: 'etcd' }];
    case 'redlock': {
      const nodes = spec.nodes as Array<{ name: string; machine: string; persistence: string | null }>;
      return nodes.map((n) => ({
        node: n.name,
        machine: n.machine,
        server: 'redis' as const,
        protocol: 'redlock' as const,
        persistence: (n.persistence ?? spec.persistence) as Persistence,
      }));
    }
    case 'combined':
      return (spec.stores as StoreSpecBase[]).flatMap((s, i) => needsOf(s, `${path}.stores[${i}]`, jumped));
    default:
      throw new UnsupportedScenarioError(
        `${path}.kind`,
        `the real runner has no server for ${spec.kind} stores (real servers: redis, memcached, postgres, sql, zookeeper, etcd, redlock, combined)`,
      );
  }
}

/** The real servers a scenario needs, one per store node. */
export function serverNeeds(scenario: Scenario): ServerNeed[] {
  const jumped = new Set(scenario.faults.flatMap((f) => (f.kind === 'clock-jump' ? [f.machine] : [])));
  return needsOf(scenario.store, 'store', jumped);
}

/** The adapter that speaks for `need` to the server at `url`, in the process of `client`. */
export function realNode(need: ServerNeed, url: string, client: string): RealNode {
  switch (need.protocol) {
    case 'redis':
      return new RedisNode(need.node, url);
    case 'redlock':
      // node-redlock's scripts: SET NX PX and the token-checked DEL, no fencing counter.
      return new RedisNode(need.node, url, false);
    case 'memcached':
      return new MemcachedNode(need.node, url);
    case 'advisory':
      return new PostgresAdvisoryNode(need.node, url, client);
    case 'table':
      return new SqlTableNode(need.node, url, client, need.database);
    case 'zookeeper':
    case 'zookeeper-recipe':
      return new ZooKeeperNode(need.node, url, need.protocol === 'zookeeper-recipe');
    case 'etcd':
      return new EtcdNode(need.node, url);
  }
}

/** Store nodes that hold a lock together, with their group and quorum, as the simulated store declares them. */
export function nodeGroups(scenario: Scenario): Map<string, { group: string; quorum: number }> {
  const out = new Map<string, { group: string; quorum: number }>();
  const walk = (spec: StoreSpecBase): string[] => {
    if (spec.kind === 'redlock') {
      const names = (spec.nodes as Array<{ name: string }>).map((n) => n.name);
      for (const n of names) out.set(n, { group: spec.name, quorum: majority(names.length) });
      return names;
    }
    if (spec.kind === 'combined') {
      const names = (spec.stores as StoreSpecBase[]).flatMap(walk);
      const quorum = strategyQuorum(spec.strategy as 'consensus' | 'unanimous', (spec.stores as StoreSpecBase[]).length);
      // Set after the stores' own groups, so a Redlock under a Combined joins the Combined group, as in the simulation.
      for (const n of names) out.set(n, { group: spec.name, quorum });
      return names;
    }
    return [spec.name];
  };
  walk(scenario.store);
  return out;
}
