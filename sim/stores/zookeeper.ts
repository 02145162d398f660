import { LIMITS } from '../scenario/limits.js';
import type { ClientSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { machineRef } from './checks.js';
import { Ensemble, EnsembleServer, SessionLockNode } from './session.js';
import { SessionDriver } from './session-driver.js';
import type { LockDriver } from './protocol.js';
import type { NodeRef } from '../runtime/types.js';
import { msToUs } from '../time.js';
import { deployedNodeFor, deployNodes } from './deploy.js';
import type { World } from '../world/world.js';
import type { Capabilities, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';

export interface ZookeeperSpec extends StoreSpecBase {
  kind: 'zookeeper' | 'zookeeper-recipe';
  name: string;
  machine: string;
  /** The server's tick: the unit of its session timeouts, and how often it expires sessions. */
  tickMs: number;
  /** The session timeout every client asks for; the server allows 2 to 20 ticks. */
  sessionTimeoutMs: number;
  /** The first zxid the ensemble hands out (to tell stories with familiar numbers). */
  zxidStart: number;
  /** An ensemble of servers (3 or 5) sharing one tree, or null for one server named `name` on `machine`. */
  servers: Array<{ name: string; machine: string }> | null;
}

const LOSES_LOCK_WHEN = [
  'session expires: the server hears no heartbeat for the session timeout (GC pause, partition); a cut-off client keeps believing until it hears of the expiry',
  'session-expiry fault',
];

/** Symfony's ZookeeperStore: one plain ephemeral node per key, so no queue and no token. */
export const ZOOKEEPER_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: false,
  sharing: false,
  fencingToken: null,
  losesLockWhen: LOSES_LOCK_WHEN,
};

/** The lock recipe: EPHEMERAL|SEQUENTIAL children, waiters queue in the server, the lock node's czxid fences. */
export const ZOOKEEPER_RECIPE_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: true,
  expiring: false,
  sharing: false,
  fencingToken: 'zxid that created the lock node (czxid)',
  losesLockWhen: LOSES_LOCK_WHEN,
};

function schema(kind: string, description: string): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: ['kind'],
    description,
    properties: {
      kind: { const: kind },
      name: {
        $ref: '#/definitions/name',
        default: 'zookeeper',
        description: "The server's name in the trace and in faults; with servers, the name of the ensemble's tree, which records the locks.",
      },
      machine: { $ref: '#/definitions/name', description: 'The machine the server runs on (with servers: defaults to the first server’s).' },
      servers: {
        type: ['array', 'null'],
        default: null,
        minItems: 3,
        maxItems: 5,
        description:
          'An ensemble: 3 or 5 servers sharing one tree. A server answers while it and a majority of the ensemble are up; a client whose server goes down reconnects to the next in the list and keeps its session. null: one server.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'machine'],
          properties: { name: { $ref: '#/definitions/name' }, machine: { $ref: '#/definitions/name' } },
        },
      },
      tickMs: {
        $ref: '#/definitions/positiveMs',
        default: 2000,
        description: "The server's tickTime: session timeouts must lie between 2 and 20 ticks, and sessions are expired on tick boundaries.",
      },
      sessionTimeoutMs: {
        $ref: '#/definitions/positiveMs',
        default: 10000,
        description:
          'The session timeout the clients ask for. The client library pings every third of it; the server ends a session it has not heard from for this long.',
      },
      zxidStart: {
        type: 'integer',
        minimum: 1,
        maximum: LIMITS.maxCounterStart,
        default: 1,
        description: 'The zxid of the first write in the run (lock nodes are created and deleted by writes).',
      },
    },
  };
}

function normalize(kind: ZookeeperSpec['kind']) {
  return (input: Record<string, unknown>, check: StoreCheck): ZookeeperSpec => {
    const servers = (input.servers as ZookeeperSpec['servers'] | undefined) ?? null;
    const spec: ZookeeperSpec = {
      kind,
      name: (input.name as string | undefined) ?? 'zookeeper',
      machine: (input.machine as string | undefined) ?? servers?.[0]?.machine ?? '',
      tickMs: (input.tickMs as number | undefined) ?? 2000,
      sessionTimeoutMs: (input.sessionTimeoutMs as number | undefined) ?? 10000,
      zxidStart: (input.zxidStart as number | undefined) ?? 1,
      servers: servers === null ? null : servers.map((x) => ({ name: x.name, machine: x.machine })),
    };
    if (spec.machine === '')
      check.issues.push({ path: `${check.path}.machine`, message: `the ${kind} store needs a machine (or servers, each with its machine)` });
    else machineRef(check, spec.machine, 'machine');
    spec.servers?.forEach((x, i) => {
      machineRef(check, x.machine, `servers[${i}].machine`);
      if (x.name === spec.name || spec.servers!.findIndex((y) => y.name === x.name) !== i)
        check.issues.push({
          path: `${check.path}.servers[${i}].name`,
          message: `server ${JSON.stringify(x.name)} is named twice (the ensemble's tree is ${JSON.stringify(spec.name)})`,
        });
    });
    if (spec.servers !== null && spec.servers.length % 2 === 0)
      check.issues.push({ path: `${check.path}.servers`, message: `an ensemble has an odd number of servers (3 or 5), got ${spec.servers.length}` });
    const min = 2 * spec.tickMs;
    const max = 20 * spec.tickMs;
    if (spec.sessionTimeoutMs < min || spec.sessionTimeoutMs > max) {
      // A real server would silently clamp it, and the scenario would not mean what it says.
      check.issues.push({
        path: `${check.path}.sessionTimeoutMs`,
        message: `the ${kind} store allows session timeouts between 2 and 20 ticks (${min} to ${max} ms with tickMs ${spec.tickMs}), got ${spec.sessionTimeoutMs}`,
      });
    }
    return spec;
  };
}

/** The servers a client's library lists: the ensemble's, or the one server. */
function serverRefs(zk: ZookeeperSpec): NodeRef[] {
  return zk.servers === null ? [{ name: zk.name }] : zk.servers.map((x) => ({ name: x.name }));
}

function driver(spec: StoreSpecBase, _client: ClientSpec): LockDriver {
  const zk = spec as ZookeeperSpec;
  const moved = deployedNodeFor(spec);
  const timeoutUs = msToUs(zk.sessionTimeoutMs);
  const symfony = zk.kind === 'zookeeper';
  return new SessionDriver(
    serverRefs(zk),
    { timeoutUs, pingEveryUs: Math.floor(timeoutUs / 3), word: 'session', symfony },
    symfony ? { store: 'ZookeeperStore', exception: 'ZookeeperConnectionException' } : { store: 'ZooKeeper recipe', exception: 'KeeperException' },
    (patch) => {
      const node = moved(patch);
      const timeoutUs = typeof patch.sessionTimeoutMs === 'number' ? msToUs(patch.sessionTimeoutMs) : undefined;
      return node === undefined && timeoutUs === undefined
        ? undefined
        : { ...(node === undefined ? {} : { servers: [node] }), ...(timeoutUs === undefined ? {} : { timeoutUs }) };
    },
  );
}

function create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
  const zk = spec as ZookeeperSpec;
  const recipe = zk.kind === 'zookeeper-recipe';
  const tree = (name: string, machine: string): SessionLockNode =>
    new SessionLockNode(world, name, machine, {
      queue: recipe,
      fencing: recipe,
      counterStart: zk.zxidStart,
      expiryStepUs: msToUs(zk.tickMs),
      word: 'session',
      lossKind: 'lock.lost',
      lossReason: 'session expired',
    });
  // One server, and one more for each machine a deploy moves clients to (another ZooKeeper: another lock).
  const trees = (zk.servers === null ? deployNodes(spec, scenario) : [{ name: zk.name, machine: zk.machine }]).map((n) => tree(n.name, n.machine));
  const node = trees[0]!;
  let nodes: Map<string, StoreNode> = new Map(trees.map((t) => [t.name, t]));
  if (zk.servers !== null) {
    const ensemble = new Ensemble(node);
    for (const x of zk.servers) ensemble.servers.push(new EnsembleServer(world, x.name, x.machine, ensemble));
    nodes = new Map(ensemble.servers.map((x) => [x.name, x]));
  }
  return {
    nodes,
    fault(f) {
      if (f.kind === 'session-expiry') for (const t of trees) t.expireClient(f.target, 'session-expiry fault');
    },
  };
}

/**
 * ZooKeeper as Symfony's ZookeeperStore uses it: the lock is one ephemeral
 * node named after the key; creating it fails while it exists, and it
 * vanishes when its session ends. Sessions are kept alive by the client
 * library's pings (see SessionDriver); the server expires a silent session on
 * the first tick after its timeout. The zxid counter runs but is not handed
 * out: this store gives no fencing token.
 */
export const ZOOKEEPER: StoreKind = {
  kind: 'zookeeper',
  title: "ZooKeeper, Symfony's store (one ephemeral node per key; no queue, no token)",
  capabilities: ZOOKEEPER_CAPABILITIES,
  hazardScenario: 'zookeeper-session-expiry',
  faults: ['session-expiry', 'store-restart', 'deploy'],
  deployable: ['machine', 'sessionTimeoutMs'],
  plainGetSet: false,
  schema: schema(
    'zookeeper',
    "ZooKeeper as Symfony's ZookeeperStore uses it: one ephemeral node per key, deleted when its session ends; no fencing token, no blocking.",
  ),
  normalize: normalize('zookeeper'),
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) =>
    (spec as ZookeeperSpec).servers === null ? deployNodes(spec, scenario).map((n) => n.name) : serverRefs(spec as ZookeeperSpec).map((x) => x.name),
  create,
  driver,
};

/**
 * ZooKeeper's lock recipe: each acquirer creates an EPHEMERAL|SEQUENTIAL
 * child of the lock node; the lowest child holds the lock, and each other
 * waits for the child just before its own to go (a watch on its predecessor
 * only, so no herd). The wait is modelled as the server holding the acquire's
 * reply until the watch would fire. The czxid of the holder's node — the
 * zxid of the write that created it, increasing across the ensemble — is the
 * fencing token. A try-lock that is not lowest deletes its node again.
 */
export const ZOOKEEPER_RECIPE: StoreKind = {
  kind: 'zookeeper-recipe',
  title: 'ZooKeeper lock recipe (EPHEMERAL|SEQUENTIAL children, watch the predecessor; blocks, czxid as fencing token)',
  capabilities: ZOOKEEPER_RECIPE_CAPABILITIES,
  hazardScenario: 'zookeeper-session-expiry',
  // The same story on the recipe: its token fences A off once the resource checks it.
  hazardSets: ['store.kind=zookeeper-recipe', 'resource.fencing=true'],
  faults: ['session-expiry', 'store-restart', 'deploy'],
  deployable: ['machine', 'sessionTimeoutMs'],
  plainGetSet: false,
  schema: schema(
    'zookeeper-recipe',
    "ZooKeeper's lock recipe: EPHEMERAL|SEQUENTIAL children, the lowest holds the lock, each waiter watches its predecessor; the czxid of the lock node is a fencing token.",
  ),
  normalize: normalize('zookeeper-recipe'),
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) =>
    (spec as ZookeeperSpec).servers === null ? deployNodes(spec, scenario).map((n) => n.name) : serverRefs(spec as ZookeeperSpec).map((x) => x.name),
  create,
  driver,
};
