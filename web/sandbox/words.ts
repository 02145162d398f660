import { scenarioSchema } from '../../sim/scenario/schema.js';
import { storeKind } from '../../sim/stores/registry.js';
import type { Scenario } from '../../sim/scenario/types.js';

/*
 * The sandbox and the fork dialog speak the user's language: each setting
 * by what it does ("Fencing counter starts at"), each closed set as a
 * choice with its values in words, each fault by its name. Settings the lab
 * has no words for yet get their field name spelled out ("keyPrefix" →
 * "Key prefix") and the schema's description as a hint.
 */

export const STORE_FIELDS: Readonly<Record<string, string>> = {
  name: 'Node name (in the trace and in faults)',
  machine: 'Runs on machine',
  persistence: 'What a restart keeps',
  fencingTokenStart: 'Fencing counter starts at',
  keyPrefix: 'Key prefix',
  lockDir: 'Lock directory',
  memoryBytes: 'Memory (bytes)',
  clock: 'Whose clock sets the expiry',
  primaries: 'Primaries that replicate to each other',
  replicationLagMs: 'Replication lag (ms)',
  ttlMonitorSec: 'TTL monitor runs every (s)',
  nodes: 'Nodes',
  driftFactor: 'Clock drift allowance (fraction of the TTL)',
  retryCount: 'Retry rounds',
  retryDelayMs: 'Wait between rounds (ms)',
  retryJitterMs: 'Jitter on that wait (ms)',
  restartDelayMs: 'A restarted node stays down at least (ms)',
  strategy: 'How many stores must agree',
  stores: 'Stores',
  tickMs: 'Tick (ms)',
  sessionTimeoutMs: 'Session timeout (ms)',
  zxidStart: 'First zxid (the fencing token base)',
  revisionStart: 'First revision (the fencing token base)',
  initialTtlMs: 'First TTL, before refresh() sets the client’s (ms)',
  evictions: 'The LRU may evict locks',
  database: 'Database behind PdoStore',
  expireAfterSeconds: 'TTL index: delete this long after expiry (s)',
  servers: 'Ensemble servers (3 or 5)',
};

const VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  persistence: { none: 'nothing: keys live in memory only', 'aof-everysec': 'the log, written every second', 'aof-always': 'the log, written on every change' },
  clock: { server: 'the database’s clock', client: 'each client’s own clock' },
  strategy: { consensus: 'a majority (consensus)', unanimous: 'all of them (unanimous)' },
  database: { mysql: 'MySQL (seconds truncated)', postgresql: 'PostgreSQL (seconds rounded)', sqlite: 'SQLite (seconds truncated)' },
};

export const FAULT_NAMES: Readonly<Record<string, string>> = {
  pause: 'GC pause (the process stops)',
  crash: 'Crash',
  'store-restart': 'Store restart',
  partition: 'Network partition',
  'clock-jump': 'Clock jump',
  'clock-drift': 'Clock drift',
  'latency-spike': 'Latency spike',
  eviction: 'Eviction (memory full)',
  'memory-pressure': 'Memory pressure',
  'session-expiry': 'Session expiry',
  'connection-loss': 'Connection loss',
  'ipc-removal': 'Semaphores removed (RemoveIPC)',
  'lock-file-cleanup': 'Lock files deleted (tmp clean-up)',
  deploy: 'Deploy with new store settings',
};

export const FAULT_FIELDS: Readonly<Record<string, string>> = {
  atMs: 'At (ms)',
  target: 'Aimed at',
  durationMs: 'Lasts (ms)',
  downMs: 'Down for (ms)',
  groups: 'Cut off from the rest',
  machine: 'Machine',
  byMs: 'Jumps by (ms, negative: back)',
  driftPpm: 'Drifts by (ppm)',
  extraMs: 'Extra delay (ms)',
  machines: 'Only for these machines',
  key: 'Key (empty: the least recently used)',
  writesPerSec: 'Other writes per second',
  itemBytes: 'Bytes per item',
  clients: 'Clients that switch',
  store: 'New store settings',
  dir: 'Only under this directory',
};

/** "keyPrefix" → "Key prefix", "replicationLagMs" → "Replication lag (ms)". */
export function spellOut(field: string): string {
  const unit = /(Ms|Sec|Ppm|Bytes)$/.exec(field)?.[1];
  const stem = unit === undefined ? field : field.slice(0, -unit.length);
  const words = stem.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  const units: Record<string, string> = { Ms: 'ms', Sec: 's', Ppm: 'ppm', Bytes: 'bytes' };
  return `${words.charAt(0).toUpperCase()}${words.slice(1)}${unit === undefined ? '' : ` (${units[unit]})`}`;
}

export const storeFieldLabel = (field: string): string => STORE_FIELDS[field] ?? spellOut(field);
export const faultFieldLabel = (field: string): string => FAULT_FIELDS[field] ?? spellOut(field);
export const faultName = (kind: string): string => FAULT_NAMES[kind] ?? spellOut(kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()));

/** A value of a closed set in words, where the lab has them. */
export const valueLabel = (field: string, value: string): string => VALUES[field]?.[value] ?? value;

interface FieldSchema {
  readonly enum?: readonly unknown[];
  readonly description?: string;
}

/** The schema of one field of a store kind's settings: its closed set of values, and what it means. */
export function storeFieldSchema(kind: string, field: string): FieldSchema {
  const props = (storeKind(kind)?.schema as { properties?: Record<string, FieldSchema> } | undefined)?.properties;
  return props?.[field] ?? {};
}

let faultDefs: Record<string, { description?: string }> | null = null;

/** What a fault kind does, from the scenario schema. */
export function faultDescription(kind: string): string {
  faultDefs ??= (scenarioSchema() as { definitions: Record<string, { description?: string }> }).definitions;
  const id = `${kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Fault`;
  return faultDefs[id]?.description ?? '';
}

/** A client's settings as the Sandbox labels them. */
export const CLIENT_FIELDS: Readonly<Record<string, string>> = {
  name: 'Name',
  machine: 'Machine',
  startMs: 'Starts at (ms)',
  key: 'Key',
  ttlMs: 'TTL (ms)',
  workMs: 'Work per write (ms)',
  workTime: 'Work time',
  'acquire.mode': 'Acquire mode',
  'acquire.method': 'Acquire method',
  'acquire.retries': 'Retries',
  'acquire.retryDelayMs': 'Retry delay (ms)',
  'acquire.waitTimeoutMs': 'Blocking wait timeout (ms)',
  refreshEveryMs: 'Refresh every (ms)',
  checkRemaining: 'Check remaining lifetime before writing',
  writes: 'Writes per lock',
  'release.method': 'Release method',
  'release.inFinally': 'Release in a finally block',
  iterations: 'Iterations',
  thinkMs: 'Think between iterations (ms)',
  requestTimeoutMs: 'Request timeout (ms)',
  pauseAfterAcquire: 'Random GC pauses after acquiring',
  'pauseAfterAcquire.probability': 'Chance of a pause after each acquisition (0 to 1)',
  steps: 'Steps',
};

/** The TTL as the Sandbox's form shows it, by its box's label: "TTL (ms): 30". */
export const formTtl = (value: string): string => `${CLIENT_FIELDS.ttlMs!}: ${value}`;

const SCENARIO_FIELDS: Readonly<Record<string, string>> = {
  name: 'Scenario › Name',
  summary: 'Scenario › Summary',
  seed: 'Scenario › Seed',
  'budget.maxTimeMs': 'Scenario › Stop after (ms of true time)',
  'budget.maxEvents': 'Scenario › Stop after (events)',
  'resource.machine': 'Store, resource and network › Resource machine',
  'resource.fencing': 'Store, resource and network › Fencing: the resource rejects lower tokens',
  'network.latencyMinMs': 'Store, resource and network › Latency min (ms)',
  'network.latencyMaxMs': 'Store, resource and network › Latency max (ms)',
  'network.distribution': 'Store, resource and network › Latency distribution',
  'network.loss': 'Store, resource and network › Message loss (0–1)',
};

/**
 * Where a problem at a scenario path sits in the Sandbox's form, in its own
 * words: "clients[0].ttlMs" → "Client A › TTL (ms)", "faults[1].atMs" →
 * "Fault 2 (Clock jump) › At (ms)". Undefined for a path the form does not
 * name.
 */
export function formPlace(scenario: Scenario, path: string): string | undefined {
  const indexed = /^(clients|faults|machines)\[(\d+)\](?:\.(.+))?$/.exec(path);
  if (indexed !== null) {
    const [, list, at, rest] = indexed;
    const i = Number(at);
    if (list === 'clients') {
      const c = scenario.clients[i];
      if (c === undefined) return undefined;
      const field = rest === undefined ? undefined : (CLIENT_FIELDS[rest] ?? CLIENT_FIELDS[rest.split('.')[0]!]);
      return field === undefined ? `Client ${c.name}` : `Client ${c.name} › ${field}`;
    }
    if (list === 'faults') {
      const f = scenario.faults[i];
      if (f === undefined) return undefined;
      const head = `Fault ${i + 1} (${faultName(f.kind)})`;
      return rest === undefined ? head : `${head} › ${faultFieldLabel(rest.split('.')[0]!.replace(/\[\d+\]$/, ''))}`;
    }
    const m = scenario.machines[i];
    if (m === undefined) return undefined;
    const field = { name: 'Name', clockOffsetMs: 'Clock offset (ms)', clockDriftPpm: 'Clock drift (ppm)' }[rest ?? ''];
    return field === undefined ? `Machine ${m.name}` : `Machine ${m.name} › ${field}`;
  }
  if (path in SCENARIO_FIELDS) return SCENARIO_FIELDS[path];
  const store = /^store\.([A-Za-z]+)/.exec(path);
  if (store !== null) return `Store, resource and network › ${store[1] === 'kind' ? 'Store' : storeFieldLabel(store[1]!)}`;
  return undefined;
}
