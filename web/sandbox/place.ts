import type { FaultSpec, Scenario } from '../../sim/scenario/types.js';
import { storeKind } from '../../sim/stores/registry.js';
import { formatDuration, formatInstant } from '../../sim/time.js';
import type { LoadedTrace } from '../state/traces.js';
import { faultTemplate } from './templates.js';

/** A new fault where it matters, and why it was put there, in a sentence. */
export interface Placement {
  readonly fault: FaultSpec;
  readonly why: string;
}

/** The store node names a fault can be aimed at, as the scenario's store kind names them. */
export function storeNodes(s: Scenario): string[] {
  try {
    const names = storeKind(s.store.kind)?.nodeNames(s.store, s) ?? [];
    if (names.length > 0) return names;
  } catch {
    // A half-edited store may not name its nodes yet; its own name will do.
  }
  return [String(s.store.name ?? s.store.kind)];
}

/** When the first client holds the lock: from the last run when there is one, else estimated from its settings. */
function holding(s: Scenario, trace: LoadedTrace | null): { client: string; fromMs: number; toMs: number; estimated: boolean } | null {
  const c = s.clients[0];
  if (c === undefined) return null;
  const lane = trace?.model.clients.find((l) => l.name === c.name);
  const span = lane?.belief[0];
  if (span !== undefined) return { client: c.name, fromMs: span.fromUs / 1000, toMs: span.toUs / 1000, estimated: false };
  // Acquiring takes a round trip (a few ms at the default latency); then the client works and writes.
  const fromMs = c.startMs + 2 * Math.max(1, s.network.latencyMaxMs);
  return { client: c.name, fromMs, toMs: fromMs + c.workMs * Math.max(1, c.writes), estimated: true };
}

/**
 * Places a new fault of a kind while the first client holds the lock, aimed
 * at that client, its machine, or the store, and sized to matter (a pause
 * outlasts the lease, a clock jump skips past it), so that running it
 * shows something. The sentence says where and why.
 */
export function placeFault(kind: string, s: Scenario, trace: LoadedTrace | null): Placement {
  const h = holding(s, trace);
  const atMs = h === null ? 0 : Math.round(h.fromMs + Math.max(1, (h.toMs - h.fromMs) * 0.25));
  const base = faultTemplate(kind, s, atMs) as unknown as Record<string, unknown>;
  const holder = s.clients.find((c) => c.name === h?.client) ?? s.clients[0];
  const ttlMs = holder?.ttlMs ?? 1000;
  const machine = holder?.machine ?? s.machines[0]?.name ?? '';
  const storeMachine = typeof s.store.machine === 'string' ? s.store.machine : machine;
  const node = storeNodes(s)[0] ?? '';
  const others = s.machines.map((m) => m.name).filter((m) => m !== machine);
  let effect = '';
  switch (kind) {
    case 'pause':
      Object.assign(base, { target: holder?.name, durationMs: Math.round(ttlMs * 1.5) });
      effect = `, for longer than its ${formatDuration(ttlMs * 1000)} lease`;
      break;
    case 'crash':
    case 'session-expiry':
    case 'connection-loss':
      Object.assign(base, { target: holder?.name });
      break;
    case 'store-restart':
    case 'eviction':
    case 'memory-pressure':
      Object.assign(base, { target: node });
      effect = `, on ${node}`;
      break;
    case 'partition':
      Object.assign(base, { groups: [[machine], others.length > 0 ? others : [storeMachine]], durationMs: Math.round(ttlMs * 1.2) });
      effect = `, cutting ${machine} off for longer than the lease`;
      break;
    case 'clock-jump':
      Object.assign(base, { machine: storeMachine, byMs: ttlMs });
      effect = `: ${storeMachine}'s clock skips a whole lease ahead`;
      break;
    case 'clock-drift':
    case 'ipc-removal':
      Object.assign(base, { machine });
      break;
    case 'deploy':
      Object.assign(base, { clients: [s.clients[s.clients.length - 1]?.name ?? holder?.name] });
      break;
  }
  const when =
    h === null
      ? `Placed at ${formatInstant(atMs * 1000)}`
      : `Placed at ${formatInstant(atMs * 1000)}, while ${h.client} holds the lock (${formatInstant(h.fromMs * 1000)} to ${formatInstant(h.toMs * 1000)}${h.estimated ? ', estimated: run to see' : ' in the last run'})`;
  return { fault: base as unknown as FaultSpec, why: `${when}${effect}. Drag its marker on the axis to move it.` };
}
