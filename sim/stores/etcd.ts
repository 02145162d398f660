import { LIMITS } from '../scenario/limits.js';
import type { ClientSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { machineRef } from './checks.js';
import { deployedNodeFor, deployNodes } from './deploy.js';
import { SessionLockNode } from './session.js';
import { SessionDriver } from './session-driver.js';
import { US_PER_MS, US_PER_S } from '../time.js';
import type { World } from '../world/world.js';
import type { Capabilities, StoreCheck, StoreInstance, StoreKind } from './types.js';
import { storeSchema } from './schema-of.js';

export interface EtcdSpec extends StoreSpecBase {
  kind: 'etcd';
  name: string;
  machine: string;
  /** The cluster's revision before the run's first write (other keys move it too). */
  revisionStart: number;
}

export const ETCD_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: true,
  expiring: true,
  sharing: false,
  fencingToken: 'create revision of the lock key',
  losesLockWhen: ['lease expires: no keep-alive reaches the server for the lease TTL (GC pause, partition)', 'session-expiry fault (the lease is revoked)'],
};

/** etcd raises a lease TTL below its minimum (1.5 × the election timeout, 1 s by default, rounded up to whole seconds) to that minimum. */
export const ETCD_MIN_LEASE_TTL_S = 2;

/** The lessor revokes expired leases from a loop that runs every 500 ms. */
const LESSOR_STEP_US = 500 * US_PER_MS;

/** The lease TTL a client gets for its lock TTL: whole seconds (rounded up), at least the server's minimum. */
export function leaseTtlUs(ttlMs: number): number {
  return Math.max(Math.ceil(ttlMs / 1000), ETCD_MIN_LEASE_TTL_S) * US_PER_S;
}

/**
 * etcd's lock (clientv3/concurrency Mutex, `etcdctl lock`): the client grants
 * a lease and keeps it alive every third of its TTL; it puts a key under the
 * lock's prefix bound to the lease; the key with the lowest create revision
 * holds the lock and each other waits for the key created just before its
 * own to be deleted. When keep-alives stop for the TTL the lease expires and
 * its key is deleted. The holder's create revision only ever increases and is
 * the fencing token the docs recommend, since the lock alone cannot give
 * mutual exclusion.
 */
export const ETCD: StoreKind = {
  kind: 'etcd',
  title: "etcd (concurrency Mutex: a key per waiter bound to a kept-alive lease; the key's create revision fences)",
  capabilities: ETCD_CAPABILITIES,
  hazardScenario: 'etcd-revision-fencing',
  faults: ['session-expiry', 'deploy'],
  deployable: ['machine'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'etcd',
    description:
      "An etcd cluster (modelled as its leader) used through clientv3's concurrency Mutex: each client's lease TTL is its ttlMs in whole seconds (rounded up; at least 2 s, etcd's minimum), kept alive every third of it.",
    name: { default: 'etcd', description: "The leader's name in the trace and in faults." },
    machine: { description: 'The machine the leader runs on.' },
    properties: {
      revisionStart: {
        type: 'integer',
        minimum: 1,
        maximum: LIMITS.maxCounterStart,
        default: 1,
        description: "The revision of the run's first write: other keys in a real cluster move it too.",
      },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): EtcdSpec {
    const spec: EtcdSpec = {
      kind: 'etcd',
      name: (input.name as string | undefined) ?? 'etcd',
      machine: input.machine as string,
      revisionStart: (input.revisionStart as number | undefined) ?? 1,
    };
    machineRef(check, spec.machine, 'machine');
    check.scenario.clients.forEach((c, i) => {
      if (c.ttlMs < 1000) {
        check.issues.push({
          path: `clients[${i}].ttlMs`,
          message: `the etcd store grants leases in whole seconds, at least 1 (concurrency.WithTTL takes seconds), got ${c.ttlMs} ms`,
        });
      }
    });
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const etcd = spec as EtcdSpec;
    const make = (name: string, machine: string): SessionLockNode =>
      new SessionLockNode(world, name, machine, {
        queue: true,
        fencing: true,
        counterStart: etcd.revisionStart,
        expiryStepUs: LESSOR_STEP_US,
        word: 'lease',
        lossKind: 'lock.expired',
        lossReason: 'lease expired',
      });
    const nodes = deployNodes(spec, scenario).map((n) => make(n.name, n.machine));
    return {
      nodes: new Map(nodes.map((n) => [n.name, n])),
      fault(f) {
        if (f.kind === 'session-expiry') for (const node of nodes) node.expireClient(f.target, 'revoked by the session-expiry fault');
      },
    };
  },
  driver(spec: StoreSpecBase, client: ClientSpec) {
    const timeoutUs = leaseTtlUs(client.ttlMs);
    const moved = deployedNodeFor(spec);
    return new SessionDriver(
      [{ name: spec.name }],
      { timeoutUs, pingEveryUs: Math.floor(timeoutUs / 3), word: 'lease', symfony: false },
      { store: 'etcd Mutex', exception: 'EtcdException' },
      (patch) => {
        const node = moved(patch);
        return node === undefined ? undefined : { servers: [node] };
      },
    );
  },
};
