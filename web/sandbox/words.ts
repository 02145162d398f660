import { scenarioSchema } from '../../sim/scenario/schema.js';
import { storeKind } from '../../sim/stores/registry.js';

/*
 * The sandbox and the fork dialog speak the user's language: each setting
 * by what it does ("Fencing counter starts at"), each closed set as a
 * choice with its values in words, each fault by its name. Settings the lab
 * has no words for yet get their field name spelled out ("keyPrefix" →
 * "Key prefix") and the schema's description as a hint.
 */

const STORE_FIELDS: Readonly<Record<string, string>> = {
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
};

const VALUES: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  persistence: { none: 'nothing: keys live in memory only', 'aof-everysec': 'the log, written every second', 'aof-always': 'the log, written on every change' },
  clock: { server: 'the database’s clock', client: 'each client’s own clock' },
  strategy: { consensus: 'a majority (consensus)', unanimous: 'all of them (unanimous)' },
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
  deploy: 'Deploy with new store settings',
};

const FAULT_FIELDS: Readonly<Record<string, string>> = {
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
