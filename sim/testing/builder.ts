import { InputError } from '../errors.js';
import { normalizeScenario } from '../scenario/normalize.js';
import type { Scenario } from '../scenario/types.js';
import type { ClientOptions, FaultDocument, MachineDocument, NetworkDocument, ScenarioDocument, StoreDocument } from './document.js';
import { runDocument, type Run, type RunOptions } from './run.js';

/** Fields every single-node store takes; each kind adds its own (docs/scenarios.md, `locklab stores`). */
export interface NodeStoreOptions {
  /** The node's name in the trace and for faults; default: the kind's own default name. */
  name?: string;
  /** Default: `db`. */
  machine?: string;
  [field: string]: unknown;
}

export interface RedisOptions extends NodeStoreOptions {
  persistence?: 'none' | 'aof-everysec' | 'aof-always';
  fencingTokenStart?: number;
  keyPrefix?: string;
}

export interface RedlockOptions {
  /** How many Redis nodes (each on its own machine `db1`, `db2`, …), or the nodes themselves. Default 3. */
  nodes?: number | Array<{ name: string; machine: string; persistence?: 'none' | 'aof-everysec' | 'aof-always' | null }>;
  persistence?: 'none' | 'aof-everysec' | 'aof-always';
  driftFactor?: number;
  retryCount?: number;
  retryDelayMs?: number;
  retryJitterMs?: number;
  restartDelayMs?: number;
  [field: string]: unknown;
}

/** When a fault happens, in milliseconds of true time. */
export interface At {
  at: number;
}
/** When a fault starts and how long it lasts, in milliseconds. */
export interface AtFor extends At {
  for: number;
}

/** Where the builder reports a scenario it cannot make, as normalizeScenario reports a file. */
function sourceOf(name: string): string {
  return `scenario ${JSON.stringify(name)} (built in code)`;
}

interface State {
  readonly doc: ScenarioDocument;
  /** The store's node when it has a single one, for faults that default to it. */
  readonly singleNode: string | undefined;
}

/**
 * Builds a scenario document in code, one call per fact, as a test reads:
 * `scenario('pause').redis().client('A', { ttlMs: 10000 }).pause('A', { at: 1000, for: 15000 })`.
 * Each call returns a new builder, so a base scenario can be varied. Machines
 * are added as clients, the store and the resource name them. The result is
 * the same document the JSON format describes, validated by the same
 * normalizer.
 */
export class ScenarioBuilder {
  private constructor(private readonly state: State) {}

  static create(name: string): ScenarioBuilder {
    return new ScenarioBuilder({ doc: { name, machines: [], clients: [], faults: [] }, singleNode: undefined });
  }

  private with(patch: Partial<ScenarioDocument>): ScenarioBuilder {
    return new ScenarioBuilder({ doc: { ...this.state.doc, ...patch }, singleNode: this.state.singleNode });
  }

  /** The machines with `names` added where missing, in the order they are first named. */
  private machinesWith(...names: string[]): MachineDocument[] {
    const machines = [...this.state.doc.machines];
    for (const name of names) if (!machines.some((m) => m.name === name)) machines.push({ name });
    return machines;
  }

  /** A client's name stands for its machine wherever a fault takes machines. */
  private machineOf(name: string): string {
    if (this.state.doc.machines.some((m) => m.name === name)) return name;
    return this.state.doc.clients.find((c) => c.name === name)?.machine ?? name;
  }

  // Faults add no machine: a machine they name must exist, so the normalizer reports a misspelt one.
  private fault(f: FaultDocument): ScenarioBuilder {
    return this.with({ faults: [...this.state.doc.faults, f] });
  }

  private node(node: string | undefined, what: string): string {
    const target = node ?? this.state.singleNode;
    if (target === undefined) {
      throw new InputError(sourceOf(this.state.doc.name), [
        { path: 'faults', message: `${what}: name the store node (the store has several, or none is set yet)` },
      ]);
    }
    return target;
  }

  summary(text: string): ScenarioBuilder {
    return this.with({ summary: text });
  }

  /** The scenario's default seed (a run's `seed` option overrides it). */
  seed(seed: number): ScenarioBuilder {
    return this.with({ seed });
  }

  budget(budget: { maxEvents?: number; maxTimeMs?: number }): ScenarioBuilder {
    return this.with({ budget: { ...this.state.doc.budget, ...budget } });
  }

  /** Declares a machine, or sets its clock: offset in ms, drift in parts per million. */
  machine(name: string, clock: { clockOffsetMs?: number; clockDriftPpm?: number } = {}): ScenarioBuilder {
    const machines = this.machinesWith(name).map((m) => (m.name === name ? { ...m, ...clock } : m));
    return this.with({ machines });
  }

  network(network: NetworkDocument): ScenarioBuilder {
    return this.with({ network: { ...this.state.doc.network, ...network } });
  }

  /** Any store, as the JSON format writes it. */
  store(store: StoreDocument): ScenarioBuilder {
    // Machines the store names: its own, its nodes' (Redlock), its stores' (Combined), its primaries' (SQL).
    const lists = [store.nodes, store.stores, store.primaries].flatMap((l) => (Array.isArray(l) ? (l as Array<{ machine?: unknown }>) : []));
    const named = [store.machine, ...lists.map((n) => n.machine)].filter((m): m is string => typeof m === 'string');
    const single = typeof store.machine === 'string' && lists.length === 0 ? (store.name ?? store.kind) : undefined;
    return new ScenarioBuilder({ doc: { ...this.state.doc, store, machines: this.machinesWith(...named) }, singleNode: single });
  }

  private nodeStore(kind: string, defaultName: string, options: NodeStoreOptions): ScenarioBuilder {
    return this.store({ kind, ...options, name: options.name ?? defaultName, machine: options.machine ?? 'db' });
  }

  redis(options: RedisOptions = {}): ScenarioBuilder {
    return this.nodeStore('redis', 'redis', options);
  }

  memcached(options: NodeStoreOptions & { memoryBytes?: number; keyPrefix?: string } = {}): ScenarioBuilder {
    return this.nodeStore('memcached', 'memcached', options);
  }

  /** A lock table; `clock: 'client'` computes expiry on the client's clock. */
  sql(options: NodeStoreOptions & { clock?: 'server' | 'client'; replicationLagMs?: number; keyPrefix?: string } = {}): ScenarioBuilder {
    return this.nodeStore('sql', 'sql', options);
  }

  mongodb(options: NodeStoreOptions & { ttlMonitorSec?: number; keyPrefix?: string } = {}): ScenarioBuilder {
    return this.nodeStore('mongodb', 'mongodb', options);
  }

  /** PostgreSQL advisory locks, bound to the session. */
  postgres(options: NodeStoreOptions = {}): ScenarioBuilder {
    return this.nodeStore('postgres', 'postgres', options);
  }

  /** Symfony's plain ephemeral node; `{ recipe: true }` is the lock recipe with the czxid as fencing token. */
  zookeeper(options: NodeStoreOptions & { recipe?: boolean; tickMs?: number; sessionTimeoutMs?: number; zxidStart?: number } = {}): ScenarioBuilder {
    const { recipe, ...rest } = options;
    return this.nodeStore(recipe === true ? 'zookeeper-recipe' : 'zookeeper', 'zookeeper', rest);
  }

  /** A hand-written lock row with no expiry: nothing but its owner's DELETE frees it. */
  lockRow(options: NodeStoreOptions & { keyPrefix?: string } = {}): ScenarioBuilder {
    return this.nodeStore('lock-row', 'locks', options);
  }

  etcd(options: NodeStoreOptions & { revisionStart?: number } = {}): ScenarioBuilder {
    return this.nodeStore('etcd', 'etcd', options);
  }

  /** A kernel lock per machine (`flock@<machine>`). */
  flock(options: { name?: string; lockDir?: string } = {}): ScenarioBuilder {
    return this.store({ kind: 'flock', ...options });
  }

  /** A System V semaphore per machine. */
  semaphore(options: { name?: string } = {}): ScenarioBuilder {
    return this.store({ kind: 'semaphore', ...options });
  }

  redlock(options: RedlockOptions = {}): ScenarioBuilder {
    const { nodes = 3, ...rest } = options;
    const list = typeof nodes === 'number' ? Array.from({ length: nodes }, (_, i) => ({ name: `redis${i + 1}`, machine: `db${i + 1}` })) : nodes;
    return this.store({ kind: 'redlock', ...rest, nodes: list });
  }

  /** Symfony's CombinedStore over single-node stores. */
  combined(strategy: 'consensus' | 'unanimous', stores: StoreDocument[]): ScenarioBuilder {
    return this.store({ kind: 'combined', strategy, stores });
  }

  /** Turns fencing on (or off) at the protected resource. */
  fencing(on = true): ScenarioBuilder {
    return this.with({ resource: { ...this.state.doc.resource, fencing: on } });
  }

  resource(resource: { machine?: string; fencing?: boolean }): ScenarioBuilder {
    const machines = resource.machine === undefined ? this.state.doc.machines : this.machinesWith(resource.machine);
    return this.with({ resource: { ...this.state.doc.resource, ...resource }, machines });
  }

  /** A client running the lock lifecycle; each gets a machine of its own unless told. */
  client(name: string, options: ClientOptions = {}): ScenarioBuilder {
    const { machine = `app${this.state.doc.clients.length + 1}`, ...rest } = options;
    return this.with({ clients: [...this.state.doc.clients, { name, machine, ...rest }], machines: this.machinesWith(machine) });
  }

  /** The client's process stops (a GC pause, SIGSTOP) and resumes `for` ms later. */
  pause(client: string, when: AtFor): ScenarioBuilder {
    return this.fault({ kind: 'pause', target: client, atMs: when.at, durationMs: when.for });
  }

  /** The client's process dies without releasing anything. */
  crash(client: string, when: At): ScenarioBuilder {
    return this.fault({ kind: 'crash', target: client, atMs: when.at });
  }

  /** A store node goes down for `for` ms and comes back with what its persistence kept. */
  restart(when: AtFor & { node?: string }): ScenarioBuilder {
    return this.fault({ kind: 'store-restart', target: this.node(when.node, 'restart'), atMs: when.at, downMs: when.for });
  }

  /** Machines (or clients, standing for their machines) in different groups cannot talk for `for` ms. */
  partition(groups: string[][], when: AtFor): ScenarioBuilder {
    const resolved = groups.map((g) => g.map((n) => this.machineOf(n)));
    return this.fault({ kind: 'partition', atMs: when.at, durationMs: when.for, groups: resolved });
  }

  /** The machine's (or the client's machine's) clock steps by `byMs`; negative goes back. */
  clockJump(machine: string, when: At & { byMs: number }): ScenarioBuilder {
    const m = this.machineOf(machine);
    return this.fault({ kind: 'clock-jump', machine: m, atMs: when.at, byMs: when.byMs });
  }

  /** The machine's clock runs at a new rate from then on. */
  clockDrift(machine: string, when: At & { driftPpm: number }): ScenarioBuilder {
    const m = this.machineOf(machine);
    return this.fault({ kind: 'clock-drift', machine: m, atMs: when.at, driftPpm: when.driftPpm });
  }

  /** Messages to or from `machines` (default: all) take `extraMs` longer for `for` ms. */
  latencySpike(when: AtFor & { extraMs: number; machines?: string[] }): ScenarioBuilder {
    const machines = when.machines?.map((n) => this.machineOf(n)) ?? null;
    return this.fault({ kind: 'latency-spike', atMs: when.at, durationMs: when.for, extraMs: when.extraMs, machines });
  }

  /** The store node evicts `key` (default: the least recently used item) before its expiry. */
  evict(when: At & { key?: string; node?: string }): ScenarioBuilder {
    return this.fault({ kind: 'eviction', target: this.node(when.node, 'evict'), atMs: when.at, key: when.key ?? null });
  }

  /** Other traffic fills the store node's memory for `for` ms. */
  memoryPressure(when: AtFor & { writesPerSec: number; itemBytes: number; node?: string }): ScenarioBuilder {
    return this.fault({
      kind: 'memory-pressure',
      target: this.node(when.node, 'memoryPressure'),
      atMs: when.at,
      durationMs: when.for,
      writesPerSec: when.writesPerSec,
      itemBytes: when.itemBytes,
    });
  }

  /** The store ends the client's session or lease (ZooKeeper, etcd). */
  expireSession(client: string, when: At): ScenarioBuilder {
    return this.fault({ kind: 'session-expiry', target: client, atMs: when.at });
  }

  /** The client's connection to the store drops (PostgreSQL advisory locks go with it). */
  loseConnection(client: string, when: At): ScenarioBuilder {
    return this.fault({ kind: 'connection-loss', target: client, atMs: when.at });
  }

  /** systemd's RemoveIPC deletes the machine's semaphores. */
  removeIpc(machine: string, when: At): ScenarioBuilder {
    const m = this.machineOf(machine);
    return this.fault({ kind: 'ipc-removal', machine: m, atMs: when.at });
  }

  /** Lock files on `machine` are deleted (a tmp cleaner, a tmpfs after a reboot), all of them or those under `dir`. */
  cleanLockFiles(machine: string, when: At & { dir?: string }): ScenarioBuilder {
    const m = this.machineOf(machine);
    return this.fault({ kind: 'lock-file-cleanup', atMs: when.at, machine: m, ...(when.dir === undefined ? {} : { dir: when.dir }) });
  }

  /** From `at`, the listed clients use the store settings patched with `store`. */
  deploy(clients: string[], store: Record<string, unknown>, when: At): ScenarioBuilder {
    return this.fault({ kind: 'deploy', atMs: when.at, clients, store });
  }

  /** The scenario document, as it would be written to a file. */
  toJSON(): ScenarioDocument {
    const d = this.state.doc;
    // Keys in the order docs/scenarios.md lists them, so a written-out scenario reads like a hand-written one.
    const ordered = {
      name: d.name,
      summary: d.summary,
      seed: d.seed,
      budget: d.budget,
      machines: d.machines,
      network: d.network,
      store: d.store,
      resource: d.resource,
      clients: d.clients,
      faults: d.faults,
    };
    return JSON.parse(JSON.stringify(ordered)) as ScenarioDocument;
  }

  /** The scenario, validated and with every default filled in; a mistake throws an InputError naming the field. */
  build(): Scenario {
    return normalizeScenario(this.toJSON(), sourceOf(this.state.doc.name));
  }

  /** Runs the scenario with a seed (default: the scenario's own). */
  run(options: RunOptions = {}): Run {
    return runDocument({ document: this.toJSON(), ref: undefined, label: sourceOf(this.state.doc.name) }, options);
  }
}

/** Starts a scenario built in code. */
export function scenario(name = 'scenario'): ScenarioBuilder {
  return ScenarioBuilder.create(name);
}
