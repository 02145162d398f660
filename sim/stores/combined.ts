import { show } from '../errors.js';
import { GENERIC_FAULTS, type ClientSpec, type FaultSpec, type Scenario, type StoreSpecBase } from '../scenario/types.js';
import type { Script } from '../world/process.js';
import type { World } from '../world/world.js';
// A cycle (the registry lists this kind): it is only read inside functions, after every module has loaded.
// Import the registry (or anything that does) before this module, never this module first.
import { storeKind } from './registry.js';
import { missedData } from './redlock.js';
import type {
  AcquireArgs,
  AcquireResult,
  Capabilities,
  ClientIo,
  LeaseRef,
  LockDriver,
  StepResult,
  StoreCheck,
  StoreInstance,
  StoreKind,
  StoreNode,
} from './types.js';

/**
 * Symfony's CombinedStore. It is as expiring as the stores under it (a lease
 * over stores that never expire has no end: the driver then says so), shares
 * nothing — Symfony's `saveRead` falls back to exclusive saves on stores that
 * cannot share, which this model does not reproduce — and has no fencing
 * token: the Key carries none, whatever a store below could hand out.
 */
export const COMBINED_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: false,
  fencingToken: null,
  losesLockWhen: [
    'fewer stores than the strategy needs still hold it (each loses it its own way: expiry, eviction, restart)',
    'the TTL passed down runs out before the last store is asked',
  ],
};

export type Strategy = 'consensus' | 'unanimous';

export interface CombinedSpec extends StoreSpecBase {
  kind: 'combined';
  /** The name of the group the stores form (the checker's unit of truth). */
  name: string;
  strategy: Strategy;
  /** Each a store of another kind, normalized by that kind, with exactly one node. */
  stores: StoreSpecBase[];
}

/** Symfony ConsensusStrategy / UnanimousStrategy. */
export function strategyMet(strategy: Strategy, successes: number, stores: number): boolean {
  return strategy === 'unanimous' ? successes === stores : successes > stores / 2;
}

export function strategyCanBeMet(strategy: Strategy, failures: number, stores: number): boolean {
  return strategy === 'unanimous' ? failures === 0 : failures < stores / 2;
}

/** How many stores must hold the key for the strategy to be met: the checker's quorum. */
export function strategyQuorum(strategy: Strategy, stores: number): number {
  return strategy === 'unanimous' ? stores : Math.floor(stores / 2) + 1;
}

/** Store-specific faults whose target is a store node; the others name a client or a machine. */
const NODE_FAULTS: readonly string[] = ['store-restart', 'eviction', 'memory-pressure'];

/**
 * The client side of CombinedStore: each store's own driver, called one
 * after another. `save` stops as soon as the strategy can no longer be met,
 * passes each next store the TTL left after the time already spent, fails if
 * that time has run out, and after a failed attempt deletes the key from
 * every store. Symfony passes the reduced TTL in `putOffExpiration` (which
 * `Lock::acquire` calls right after `save`); here the first save already
 * carries it, which sets the same expiries without the extra round.
 */
export class CombinedDriver implements LockDriver {
  constructor(
    private readonly drivers: readonly LockDriver[],
    private readonly strategy: Strategy,
  ) {}

  private get n(): number {
    return this.drivers.length;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const startLocal = io.localNow();
    let successes = 0;
    let failures = 0;
    let asked = 0;
    let expiring = false;
    let lastMsg = 0;
    let holder: string | null | undefined;
    let ranOut = false;
    for (const d of this.drivers) {
      const leftUs = a.ttlUs - (io.localNow() - startLocal);
      if (leftUs <= 0) {
        ranOut = true;
        break;
      }
      asked++;
      // Written out rather than spread: spreads are slow on this path.
      const r = yield* d.acquire(io, { key: a.key, owner: a.owner, attempt: a.attempt, ttlUs: leftUs, shared: false, waitUs: undefined });
      lastMsg = r.msg;
      if (r.status === 'ok') {
        successes++;
        if (r.expiresLocalUs !== null) expiring = true;
      } else {
        failures++;
        if (r.status === 'denied' && holder === undefined && r.holder !== undefined && r.holder !== null) holder = r.holder;
      }
      if (!strategyCanBeMet(this.strategy, failures, this.n)) break;
    }
    // Symfony's checkNotExpired: a key whose lifetime ran out while the stores were asked is not acquired.
    if (io.localNow() - startLocal >= a.ttlUs) ranOut = true;
    if (!ranOut && strategyMet(this.strategy, successes, this.n)) {
      return { status: 'ok', msg: lastMsg, expiresLocalUs: expiring ? startLocal + a.ttlUs : null };
    }
    const reason = ranOut
      ? 'the TTL ran out while the stores were asked'
      : `the ${this.strategy} strategy cannot be met: ${failures} of ${this.n} stores failed`;
    io.emit('quorum.missed', {
      owner: a.owner,
      reason,
      data: missedData(successes, this.n, strategyQuorum(this.strategy, this.n), 'stores', { asked, strategy: this.strategy }),
    });
    yield* this.deleteEverywhere(io, { key: a.key, owner: a.owner, fence: undefined });
    return { status: 'denied', msg: lastMsg, holder, reason };
  }

  /** `putOffExpiration`: the same walk, each store given the TTL left; a failure deletes the key everywhere. */
  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const startLocal = io.localNow();
    let successes = 0;
    let failures = 0;
    let asked = 0;
    let lastMsg = 0;
    let ranOut = false;
    for (const d of this.drivers) {
      const leftUs = ttlUs - (io.localNow() - startLocal);
      if (leftUs <= 0) {
        ranOut = true;
        break;
      }
      asked++;
      const r = yield* d.refresh(io, lease, leftUs);
      lastMsg = r.msg;
      if (r.status === 'ok') successes++;
      else failures++;
      if (!strategyCanBeMet(this.strategy, failures, this.n)) break;
    }
    if (io.localNow() - startLocal >= ttlUs) ranOut = true;
    if (!ranOut && strategyMet(this.strategy, successes, this.n)) return { status: 'ok', msg: lastMsg };
    const reason = ranOut ? 'the TTL ran out while the stores were asked' : `the ${this.strategy} strategy cannot be met`;
    io.emit('quorum.missed', {
      owner: lease.owner,
      reason,
      data: missedData(successes, this.n, strategyQuorum(this.strategy, this.n), 'stores', { asked, strategy: this.strategy }),
    });
    yield* this.deleteEverywhere(io, lease);
    return { status: 'failed', msg: lastMsg, reason };
  }

  /** `delete`: every store in turn, whatever each answers; done when the strategy's count of stores confirmed it. */
  *release(io: ClientIo, lease: LeaseRef): Script<StepResult> {
    const { confirmed, lastMsg } = yield* this.deleteEverywhere(io, lease);
    if (strategyMet(this.strategy, confirmed, this.n)) return { status: 'ok', msg: lastMsg };
    return { status: 'failed', msg: lastMsg, reason: `deleted from ${confirmed} of ${this.n} stores` };
  }

  private *deleteEverywhere(io: ClientIo, lease: LeaseRef): Script<{ confirmed: number; lastMsg: number }> {
    let confirmed = 0;
    let lastMsg = 0;
    for (const d of this.drivers) {
      const r = yield* d.release(io, { key: lease.key, owner: lease.owner, fence: undefined }, 'token-checked');
      lastMsg = r.msg;
      if (r.status === 'ok') confirmed++;
    }
    return { confirmed, lastMsg };
  }
}

/** Symfony's CombinedStore over stores of any other kinds, with the consensus or unanimous strategy. */
export const COMBINED: StoreKind = {
  kind: 'combined',
  title: 'Combined (Symfony CombinedStore): consensus or unanimous over other stores',
  capabilities: COMBINED_CAPABILITIES,
  hazardScenario: 'combined-unanimous-node-down',
  starter: (machines) => ({
    kind: 'combined',
    strategy: 'consensus',
    stores: ['r1', 'r2', 'r3'].map((name, i) => ({
      kind: 'redis',
      name,
      machine: machines[(machines.length - 1 - i + 3 * machines.length) % machines.length] ?? 'db',
    })),
  }),
  // Whatever the stores below take; normalize checks each against the store it reaches.
  faults: ['store-restart', 'eviction', 'memory-pressure', 'session-expiry', 'connection-loss', 'ipc-removal'],
  plainGetSet: false,
  schema: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'stores'],
    description:
      'Symfony CombinedStore: saves in each store one after another, stops as soon as the strategy can no longer be met, passes down the TTL left, and deletes the key from every store after a failed attempt.',
    properties: {
      kind: { const: 'combined' },
      name: { $ref: '#/definitions/name', default: 'combined', description: 'The name of the group the stores form.' },
      strategy: {
        enum: ['consensus', 'unanimous'],
        default: 'consensus',
        description: 'consensus: more than half of the stores must hold the key; unanimous: all of them.',
      },
      stores: {
        type: 'array',
        minItems: 1,
        maxItems: 99,
        description:
          'The stores, asked in this order; each is a store of another kind with exactly one node. A store without a name is named after its kind and position (redis1, redis2, ...).',
        items: { $ref: '#/definitions/store' },
      },
    },
  },
  normalize(input: Record<string, unknown>, check: StoreCheck): CombinedSpec {
    const strategy = (input.strategy as Strategy | undefined) ?? 'consensus';
    const inputs = input.stores as Array<Record<string, unknown> & { kind: string }>;
    const stores: StoreSpecBase[] = [];
    const owner = new Map<string, number>();
    inputs.forEach((sub, i) => {
      const at = `${check.path}.stores[${i}]`;
      const kind = storeKind(sub.kind)!;
      // Unnamed stores would all take their kind's default name; numbering them keeps node names apart.
      const named = sub.name === undefined ? { ...sub, name: `${sub.kind}${i + 1}` } : sub;
      const spec = kind.normalize(named, { scenario: check.scenario, path: at, issues: check.issues });
      stores.push(spec);
      const nodes = kind.nodeNames(spec);
      if (nodes.length !== 1) {
        check.issues.push({
          path: `${at}.kind`,
          message: `the combined store takes stores of one node each, but this ${sub.kind} store has ${nodes.length}: the checker cannot judge a quorum of quorums`,
        });
      }
      for (const n of nodes) {
        if (owner.has(n))
          check.issues.push({ path: `${at}.name`, message: `the combined store already has a node named ${show(n)} (stores[${owner.get(n)}])` });
        else owner.set(n, i);
      }
    });
    const name = (input.name as string | undefined) ?? 'combined';
    if (owner.has(name))
      check.issues.push({ path: `${check.path}.name`, message: `the combined store's group name ${show(name)} is also a store node's name` });
    // The core lets every fault in `faults` through; each must reach a store that knows it.
    check.scenario.faults.forEach((f, i) => {
      if (GENERIC_FAULTS.includes(f.kind)) return;
      const takers = stores.map((s, si) => (storeKind(s.kind)!.faults.includes(f.kind) ? si : -1)).filter((si) => si !== -1);
      const target = NODE_FAULTS.includes(f.kind) ? owner.get((f as { target: string }).target) : undefined;
      const reached = NODE_FAULTS.includes(f.kind) ? target === undefined || takers.includes(target) : takers.length > 0;
      if (!reached) {
        const which =
          target === undefined ? 'none of its stores takes it' : `its store ${show(stores[target]!.name)} (${stores[target]!.kind}) does not take it`;
        check.issues.push({ path: `faults[${i}].kind`, message: `the combined store cannot pass ${show(f.kind)} on: ${which}` });
      }
    });
    return { kind: 'combined', name, strategy, stores };
  },
  nodeNames: (spec: StoreSpecBase) => (spec as CombinedSpec).stores.flatMap((s) => storeKind(s.kind)!.nodeNames(s)),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const c = spec as CombinedSpec;
    const subs = c.stores.map((s) => ({ spec: s, instance: storeKind(s.kind)!.create(world, s, scenario) }));
    const quorum = strategyQuorum(c.strategy, subs.length);
    const nodes = new Map<string, StoreNode>();
    for (const sub of subs) {
      for (const [name, node] of sub.instance.nodes) {
        nodes.set(name, node);
        // After the store's own create, so a one-node Redlock or Combined below joins this group instead.
        world.setNodeGroup(name, c.name, quorum);
      }
    }
    return {
      nodes,
      driver: (client: ClientSpec) =>
        new CombinedDriver(
          subs.map((sub) => sub.instance.driver(client)),
          c.strategy,
        ),
      fault(f: FaultSpec, index: number): void {
        const target = NODE_FAULTS.includes(f.kind) ? (f as { target: string }).target : undefined;
        for (const sub of subs) {
          if (!storeKind(sub.spec.kind)!.faults.includes(f.kind)) continue;
          if (target !== undefined && !sub.instance.nodes.has(target)) continue;
          sub.instance.fault?.(f, index);
        }
      },
    };
  },
};
