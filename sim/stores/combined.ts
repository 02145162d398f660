import { LIMITS } from '../scenario/limits.js';
import { show } from '../errors.js';
import { GENERIC_FAULTS, type ClientSpec, type FaultSpec, type Scenario, type StoreSpecBase } from '../scenario/types.js';
import type { World } from '../world/world.js';
import { CombinedDriver, strategyQuorum, type CombinedSpec, type Strategy } from './combined-driver.js';
import type { Capabilities, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';

export { CombinedDriver, strategyCanBeMet, strategyMet, strategyQuorum, type CombinedSpec, type Strategy } from './combined-driver.js';

/**
 * Symfony's CombinedStore. It is as expiring as the stores under it (a lease
 * over stores that never expire has no end: the driver then says so), shares
 * where its stores share — `saveRead` asks a store without shared locks for
 * an ordinary one — and has no fencing token: the Key carries none, whatever
 * a store below could hand out.
 */
export const COMBINED_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  // CombinedStore is a SharedLockStoreInterface: saveRead() takes a shared lock in each store that has them, an ordinary one in the others.
  sharing: true,
  fencingToken: null,
  losesLockWhen: [
    'fewer stores than the strategy needs still hold it (each loses it its own way: expiry, eviction, restart)',
    'the TTL passed down runs out before the last store is asked',
  ],
};

/** Store-specific faults whose target is a store node; the others name a client or a machine. */
const NODE_FAULTS: readonly string[] = ['store-restart', 'eviction', 'memory-pressure'];

/**
 * Symfony's CombinedStore over stores of any other kinds, with the consensus
 * or unanimous strategy. The kinds it may combine are passed in (the registry
 * passes its own lookup), so this module does not import the registry that
 * lists it.
 */
export function combinedKind(kinds: (kind: string) => StoreKind | undefined): StoreKind {
  const storeKind = (kind: string): StoreKind => {
    const k = kinds(kind);
    if (k === undefined) throw new Error(`no store kind ${kind}: normalize the scenario first`);
    return k;
  };
  return {
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
    faults: ['store-restart', 'eviction', 'memory-pressure', 'session-expiry', 'connection-loss', 'ipc-removal', 'deploy'],
    // Every process must use the same stores (C61): a deploy that gives some clients others is honoured, and shows why.
    deployable: ['stores', 'strategy'],
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
          maxItems: LIMITS.maxStoreNodes,
          'x-limit': 'maxStoreNodes',
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
        const kind = storeKind(sub.kind);
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
      // A deploy may give clients other stores: normalize them as these, and keep a name for one store only.
      const faults = check.scenario.faults as FaultSpec[];
      faults.forEach((f, fi) => {
        if (f.kind !== 'deploy' || !Array.isArray(f.store.stores)) return;
        const deployed = (f.store.stores as Array<Record<string, unknown> & { kind: string }>).map((sub, i) => {
          const at = `faults[${fi}].store.stores[${i}]`;
          const kind = kinds(sub.kind);
          if (kind === undefined) return sub as StoreSpecBase;
          const spec = kind.normalize(sub.name === undefined ? { ...sub, name: `${sub.kind}${i + 1}` } : sub, {
            scenario: check.scenario,
            path: at,
            issues: check.issues,
          });
          const same = stores.find((x) => x.name === spec.name);
          if (same !== undefined && JSON.stringify(same) !== JSON.stringify(spec))
            check.issues.push({ path: `${at}.name`, message: `the combined store already has a store named ${show(spec.name)}, set up differently` });
          if (kind.nodeNames(spec).length !== 1) check.issues.push({ path: `${at}.kind`, message: `the combined store takes stores of one node each` });
          return spec;
        });
        faults[fi] = { ...f, store: { ...f.store, stores: deployed } };
      });
      const name = (input.name as string | undefined) ?? 'combined';
      if (owner.has(name))
        check.issues.push({ path: `${check.path}.name`, message: `the combined store's group name ${show(name)} is also a store node's name` });
      // The core lets every fault in `faults` through; each must reach a store that knows it.
      check.scenario.faults.forEach((f, i) => {
        if (GENERIC_FAULTS.includes(f.kind) || f.kind === 'deploy') return;
        const takers = stores.map((s, si) => (storeKind(s.kind).faults.includes(f.kind) ? si : -1)).filter((si) => si !== -1);
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
    nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => {
      const all = [...(spec as CombinedSpec).stores];
      for (const s of scenario === undefined ? [] : deployedStores(scenario)) if (!all.some((x) => x.name === s.name)) all.push(s);
      return all.flatMap((s) => storeKind(s.kind).nodeNames(s));
    },
    create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
      const c = spec as CombinedSpec;
      const all = [...c.stores];
      for (const s of deployedStores(scenario)) if (!all.some((x) => x.name === s.name)) all.push(s);
      const subs = all.map((s) => ({ spec: s, instance: storeKind(s.kind).create(world, s, scenario) }));
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
        fault(f: FaultSpec, index: number): void {
          const target = NODE_FAULTS.includes(f.kind) ? (f as { target: string }).target : undefined;
          for (const sub of subs) {
            if (!storeKind(sub.spec.kind).faults.includes(f.kind)) continue;
            if (target !== undefined && !sub.instance.nodes.has(target)) continue;
            sub.instance.fault?.(f, index);
          }
        },
      };
    },
    driver(spec: StoreSpecBase, client: ClientSpec, scenario: Scenario) {
      const c = spec as CombinedSpec;
      const drivers = (stores: readonly StoreSpecBase[]) => stores.map((s) => storeKind(s.kind).driver(s, client, scenario));
      const shares = (stores: readonly StoreSpecBase[]) => stores.map((s) => storeKind(s.kind).capabilities.sharing);
      let current: { stores: readonly StoreSpecBase[]; strategy: Strategy } = { stores: c.stores, strategy: c.strategy };
      return new CombinedDriver(drivers(c.stores), c.strategy, shares(c.stores), (patch) => {
        if (patch.stores === undefined && patch.strategy === undefined) return undefined;
        current = {
          stores: (patch.stores as StoreSpecBase[] | undefined) ?? current.stores,
          strategy: (patch.strategy as Strategy | undefined) ?? current.strategy,
        };
        return { drivers: drivers(current.stores), shares: shares(current.stores), strategy: current.strategy };
      });
    },
  };
}

/** The stores deploys give some clients, normalized (the combined store's normalize did it). */
function deployedStores(scenario: Pick<Scenario, 'faults'>): StoreSpecBase[] {
  const out: StoreSpecBase[] = [];
  for (const f of scenario.faults ?? []) if (f.kind === 'deploy' && Array.isArray(f.store.stores)) out.push(...(f.store.stores as StoreSpecBase[]));
  return out;
}
