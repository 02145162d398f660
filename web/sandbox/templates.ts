import type { FaultSpec, Scenario } from '../../sim/scenario/types.js';
import { GENERIC_FAULTS } from '../../sim/scenario/types.js';
import { storeKind } from '../../sim/stores/registry.js';

/*
 * Fault templates as plain data. The store models (and their faults) grow
 * in sim/ independently of the lab, so the lab does not hard-code their
 * types: it offers a sensible starting document for each kind and lets the
 * worker's validation name anything that does not fit.
 */

/** The fault kinds the Sandbox and Fork offer for a store kind: the generic ones plus the store's own, as its model lists them. */
export function faultKindsFor(kind: string): string[] {
  const own = storeKind(kind)?.faults ?? [];
  return [...GENERIC_FAULTS, ...own.filter((k) => !(GENERIC_FAULTS as readonly string[]).includes(k))];
}

/** The store node names a fault can be aimed at: the node itself, or nodes named after it. */
function storeTarget(s: Scenario): string {
  return String(s.store.name ?? s.store.kind);
}

/** A new fault of a kind at a time, aimed at the first client, machine or store node as fits. */
export function faultTemplate(kind: string, s: Scenario, atMs: number): FaultSpec {
  const client = s.clients[0]?.name ?? 'A';
  const machine = s.machines[0]?.name ?? 'app1';
  const storeMachine = typeof s.store.machine === 'string' ? s.store.machine : machine;
  const others = s.machines.filter((m) => m.name !== machine).map((m) => m.name);
  const byKind: Record<string, Record<string, unknown>> = {
    pause: { target: client, durationMs: 5000 },
    crash: { target: client },
    'store-restart': { target: storeTarget(s), downMs: 1000 },
    partition: { durationMs: 5000, groups: [[machine], others.length > 0 ? others : [storeMachine]] },
    'clock-jump': { machine: storeMachine, byMs: 5000 },
    'clock-drift': { machine, driftPpm: 500 },
    'latency-spike': { durationMs: 2000, extraMs: 500, machines: null },
    eviction: { target: storeTarget(s), key: null },
    'memory-pressure': { target: storeTarget(s), durationMs: 2000, writesPerSec: 1000, itemBytes: 1024 },
    'session-expiry': { target: client },
    'connection-loss': { target: client },
    'ipc-removal': { machine },
    deploy: { clients: [client], store: {} },
  };
  return { kind, atMs, ...(byKind[kind] ?? {}) } as unknown as FaultSpec;
}

/** How long a fault lasts, for drawing it on the strip. */
export function faultDurationMs(f: FaultSpec): number {
  const r = f as unknown as Record<string, unknown>;
  for (const k of ['durationMs', 'downMs']) if (typeof r[k] === 'number') return r[k];
  return 0;
}

/** A minimal scenario; the worker fills in every default before it reaches the form. */
export const BLANK_SCENARIO = {
  name: 'my-scenario',
  seed: 1,
  machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
  store: { kind: 'redis', machine: 'db' },
  resource: { machine: 'db', fencing: false },
  clients: [{ name: 'A', machine: 'app1', ttlMs: 10000, workMs: 1000 }],
};
