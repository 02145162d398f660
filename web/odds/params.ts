import type { Scenario } from '../../sim/scenario/types.js';

/** A parameter the Odds view offers to vary: a scenario path, what to call it, and its value in the scenario. */
export interface ParamChoice {
  readonly path: string;
  readonly label: string;
  readonly value: number | boolean;
  readonly kind: 'number' | 'boolean';
}

/**
 * The fields worth sweeping in a scenario, named as a person would: the
 * TTL every client shares, each client's TTL, work time, refresh interval and
 * chance of a random GC pause, each pause's length, each
 * machine's clock offset, the network's latency and fencing. Any other
 * numeric or boolean path can still be typed in.
 */
export function paramChoices(s: Scenario): ParamChoice[] {
  const out: ParamChoice[] = [];
  // Clients that share a setting are varied together first: "what TTL should our workers use?"
  const shared = <T>(get: (c: Scenario['clients'][number]) => T | undefined): T | undefined => {
    const first = s.clients[0] === undefined ? undefined : get(s.clients[0]);
    return s.clients.length > 1 && first !== undefined && s.clients.every((c) => get(c) === first) ? first : undefined;
  };
  const ttl = shared((c) => c.ttlMs);
  if (ttl !== undefined) out.push({ path: 'clients[*].ttlMs', label: 'TTL of every client (ms)', value: ttl, kind: 'number' });
  const chance = shared((c) => c.pauseAfterAcquire?.probability);
  if (chance !== undefined)
    out.push({
      path: 'clients[*].pauseAfterAcquire.probability',
      label: 'chance of a GC pause after each acquisition, every client',
      value: chance,
      kind: 'number',
    });
  for (const c of s.clients) {
    out.push({ path: `clients.${c.name}.ttlMs`, label: `TTL of ${c.name} (ms)`, value: c.ttlMs, kind: 'number' });
    out.push({ path: `clients.${c.name}.workMs`, label: `work time of ${c.name} (ms)`, value: c.workMs, kind: 'number' });
    if (c.refreshEveryMs !== null)
      out.push({ path: `clients.${c.name}.refreshEveryMs`, label: `refresh interval of ${c.name} (ms)`, value: c.refreshEveryMs, kind: 'number' });
    if (c.pauseAfterAcquire !== undefined)
      out.push({
        path: `clients.${c.name}.pauseAfterAcquire.probability`,
        label: `chance of a GC pause after each of ${c.name}'s acquisitions`,
        value: c.pauseAfterAcquire.probability,
        kind: 'number',
      });
  }
  s.faults.forEach((f, i) => {
    if (f.kind === 'pause')
      out.push({ path: `faults[${i}].durationMs`, label: `pause of ${f.target} at ${f.atMs / 1000} s (ms)`, value: f.durationMs, kind: 'number' });
    if (f.kind === 'clock-jump') out.push({ path: `faults[${i}].byMs`, label: `clock jump on ${f.machine} (ms)`, value: f.byMs, kind: 'number' });
    if (f.kind === 'partition' || f.kind === 'latency-spike')
      out.push({ path: `faults[${i}].durationMs`, label: `${f.kind} at ${f.atMs / 1000} s, length (ms)`, value: f.durationMs, kind: 'number' });
  });
  for (const m of s.machines)
    out.push({ path: `machines.${m.name}.clockOffsetMs`, label: `clock offset of ${m.name} (ms)`, value: m.clockOffsetMs, kind: 'number' });
  out.push({ path: 'network.latencyMaxMs', label: 'network latency, most (ms)', value: s.network.latencyMaxMs, kind: 'number' });
  out.push({ path: 'network.loss', label: 'network loss (share of messages)', value: s.network.loss, kind: 'number' });
  out.push({ path: 'resource.fencing', label: 'fencing', value: s.resource.fencing, kind: 'boolean' });
  return out;
}

/** A round step near (to - from) / 10: 1, 2 or 5 times a power of ten. */
export function niceStep(span: number): number {
  if (span <= 0) return 1;
  const raw = span / 10;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/** A range around a value to start from: half to one and a half times it, or ±500 around zero, in about ten steps. */
export function defaultRange(value: number): { from: number; to: number; step: number } {
  if (value === 0) return { from: -500, to: 500, step: 100 };
  if (value > 0 && value < 1) return { from: 0, to: Math.min(1, value * 2), step: niceStep(Math.min(1, value * 2)) };
  const a = Math.min(value * 0.5, value * 1.5);
  const b = Math.max(value * 0.5, value * 1.5);
  const step = niceStep(b - a);
  return { from: Math.floor(a / step) * step, to: Math.ceil(b / step) * step, step };
}
