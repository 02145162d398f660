import { sizeField, type Distribution } from '../../sim/kernel/dist.js';
import { showValue } from '../../sim/odds/range.js';
import { ordinal } from '../model/ordinal.js';
import { forEachStep } from '../../sim/scenario/steps.js';
import { storeKind } from '../../sim/stores/registry.js';
import { STORE_FIELDS } from '../sandbox/words.js';
import type { Scenario } from '../../sim/scenario/types.js';

/** A parameter's value as the Odds view shows it: a number with its digits grouped (10,000), anything else as `--set` takes it. */
export const showParam = (v: unknown): string => (typeof v === 'number' ? v.toLocaleString('en-US') : showValue(v));

/** A parameter the Odds view offers to vary: a scenario path, what to call it, and its value in the scenario. */
export interface ParamChoice {
  readonly path: string;
  readonly label: string;
  readonly value: number | boolean;
  readonly kind: 'number' | 'boolean';
  /** The values the scenario allows, where it allows fewer than any number: the range offered first stays inside them. */
  readonly bounds?: Bounds;
}

export interface Bounds {
  readonly min: number;
  readonly max: number;
}

/** The store settings worth sweeping, where a store has them, and when a run reads them; named as the Sandbox names them. */
const STORE_SETTINGS: ReadonlyArray<{ field: string; when?: (s: Scenario) => boolean; bounds?: (store: Record<string, unknown>) => Bounds }> = [
  // ZooKeeper allows session timeouts of 2 to 20 ticks.
  { field: 'sessionTimeoutMs', bounds: (store) => ({ min: 2 * (store.tickMs as number), max: 20 * (store.tickMs as number) }) },
  { field: 'driftFactor' },
  { field: 'restartDelayMs', when: (s) => s.faults.some((f) => f.kind === 'store-restart') },
  { field: 'memoryBytes', when: (s) => s.faults.some((f) => f.kind === 'memory-pressure') },
];

/** The field of a drawn duration a sweep varies, and the word for it: "mean ", "longest ", or none for a fixed one. */
function drawnField(d: Distribution): { field: string; word: string } {
  const field = sizeField(d);
  return { field, word: field === 'meanMs' ? 'mean ' : field === 'maxMs' ? 'longest ' : '' };
}

/** The value of the field `drawnField` names. */
function fieldOf(d: Distribution): number {
  return d.distribution === 'exponential' ? d.meanMs : d.distribution === 'fixed' ? d.ms : d.maxMs;
}

/**
 * The fields worth sweeping in a scenario, named as a person would: the
 * TTL, work time and random GC pauses every client shares, then each
 * client's TTL, work time (its drawn work time's mean or longest value, or
 * each work step of a client written as steps), refresh interval, chance of
 * a random GC pause and that pause's length, each fault's size, each
 * machine's clock offset, the network's latency and fencing. A field the run
 * never reads is not offered, since its line could only be flat: a TTL on a
 * store whose locks never expire, workMs beside a drawn work time, the
 * network of a store on the clients' own machines. Any other numeric or
 * boolean path can still be typed in.
 */
export function paramChoices(s: Scenario): ParamChoice[] {
  const out: ParamChoice[] = [];
  const number = (path: string, label: string, value: number, bounds: Bounds | undefined = boundsOf(path)): void =>
    void out.push({ path, label, value, kind: 'number', ...(bounds === undefined ? {} : { bounds }) });
  // Clients that share a setting are varied together first: "what TTL should our workers use?"
  const shared = <T>(get: (c: Scenario['clients'][number]) => T | undefined): T | undefined => {
    const first = s.clients[0] === undefined ? undefined : get(s.clients[0]);
    return s.clients.length > 1 && first !== undefined && s.clients.every((c) => get(c) === first) ? first : undefined;
  };
  // A drawn duration is shared when every client draws it the same way: the same distribution and the same value of the varied field.
  const drawn = (d: Distribution | undefined): string | undefined => (d === undefined ? undefined : `${drawnField(d).field}=${fieldOf(d)}`);
  // A store whose locks never expire (flock, a semaphore, PostgreSQL, ZooKeeper, a lock row) reads no TTL.
  const caps = storeKind(s.store.kind)!.capabilities;
  const ttl = caps.expiring ? shared((c) => c.ttlMs) : undefined;
  if (ttl !== undefined) number('clients[*].ttlMs', 'TTL of every client (ms)', ttl);
  const first = s.clients[0];
  if (first?.workTime !== undefined && shared((c) => drawn(c.workTime)) !== undefined) {
    const { field, word } = drawnField(first.workTime);
    number(`clients[*].workTime.${field}`, `${word}work time of every client (ms)`, fieldOf(first.workTime));
  }
  const chance = shared((c) => c.pauseAfterAcquire?.probability);
  if (chance !== undefined) number('clients[*].pauseAfterAcquire.probability', 'chance of a GC pause after each acquisition, every client', chance);
  if (first?.pauseAfterAcquire !== undefined && shared((c) => drawn(c.pauseAfterAcquire?.duration)) !== undefined) {
    const { field, word } = drawnField(first.pauseAfterAcquire.duration);
    number(`clients[*].pauseAfterAcquire.duration.${field}`, `${word}GC pause of every client (ms)`, fieldOf(first.pauseAfterAcquire.duration));
  }
  for (const c of s.clients) {
    const at = `clients.${c.name}`;
    if (caps.expiring) number(`${at}.ttlMs`, `TTL of ${c.name} (ms)`, c.ttlMs);
    if (c.steps !== null) {
      // A client written as steps works where its steps say: each work step is a parameter of its own.
      const works: Array<{ path: string; ms: number }> = [];
      forEachStep(c.steps, `${at}.steps`, (step, path) => {
        if (step.step === 'work') works.push({ path: `${path}.durationMs`, ms: step.durationMs });
      });
      works.forEach((w, i) => number(w.path, works.length === 1 ? `work time of ${c.name} (ms)` : `${c.name}'s ${ordinal(i + 1)} work step (ms)`, w.ms));
      continue;
    }
    if (c.workTime === undefined) number(`${at}.workMs`, `work time of ${c.name} (ms)`, c.workMs);
    else {
      const { field, word } = drawnField(c.workTime);
      number(`${at}.workTime.${field}`, `${word}work time of ${c.name} (ms)`, fieldOf(c.workTime));
    }
    if (c.refreshEveryMs !== null) number(`${at}.refreshEveryMs`, `refresh interval of ${c.name} (ms)`, c.refreshEveryMs);
    if (c.pauseAfterAcquire !== undefined) {
      number(`${at}.pauseAfterAcquire.probability`, `chance of a GC pause after each of ${c.name}'s acquisitions`, c.pauseAfterAcquire.probability);
      const { field, word } = drawnField(c.pauseAfterAcquire.duration);
      number(`${at}.pauseAfterAcquire.duration.${field}`, `${word}GC pause of ${c.name} (ms)`, fieldOf(c.pauseAfterAcquire.duration));
    }
  }
  s.faults.forEach((f, i) => {
    const at = `faults[${i}]`;
    const when = `at ${f.atMs / 1000} s`;
    switch (f.kind) {
      case 'pause':
        return number(`${at}.durationMs`, `pause of ${f.target} ${when} (ms)`, f.durationMs);
      case 'clock-jump':
        return number(`${at}.byMs`, `clock jump on ${f.machine} (ms)`, f.byMs);
      case 'clock-drift':
        return number(`${at}.driftPpm`, `clock drift on ${f.machine} (ppm)`, f.driftPpm);
      case 'partition':
        return number(`${at}.durationMs`, `partition ${when}, length (ms)`, f.durationMs);
      case 'latency-spike':
        number(`${at}.durationMs`, `latency spike ${when}, length (ms)`, f.durationMs);
        return number(`${at}.extraMs`, `latency spike ${when}, extra latency (ms)`, f.extraMs);
      case 'store-restart':
        return number(`${at}.downMs`, `restart of ${f.target} ${when}, time down (ms)`, f.downMs);
      case 'memory-pressure':
        number(`${at}.durationMs`, `memory pressure ${when}, length (ms)`, f.durationMs);
        return number(`${at}.writesPerSec`, `memory pressure ${when}, writes per second`, f.writesPerSec);
      // A fault with no size of its own: when it strikes is what there is to vary.
      case 'crash':
        return number(`${at}.atMs`, `time of ${f.target}'s crash (ms)`, f.atMs);
      case 'connection-loss':
        return number(`${at}.atMs`, `time of ${f.target}'s connection loss (ms)`, f.atMs);
      case 'session-expiry':
        return number(`${at}.atMs`, `time of ${f.target}'s session expiry (ms)`, f.atMs);
      case 'eviction':
        return number(`${at}.atMs`, `time of the eviction on ${f.target} (ms)`, f.atMs);
      case 'ipc-removal':
        return number(`${at}.atMs`, `time of the IPC removal on ${f.machine} (ms)`, f.atMs);
      case 'lock-file-cleanup':
        return number(`${at}.atMs`, `time of the lock-file cleanup on ${f.machine} (ms)`, f.atMs);
      case 'deploy':
        return number(`${at}.atMs`, `time of the deploy (ms)`, f.atMs);
    }
  });
  // The store's own settings that change what a run does (the rest name things, number tokens, or matter only in other set-ups).
  const store = s.store as unknown as Record<string, unknown>;
  for (const { field, when, bounds } of STORE_SETTINGS) {
    const value = store[field];
    const words = STORE_FIELDS[field] ?? field;
    if (typeof value === 'number' && (when?.(s) ?? true)) number(`store.${field}`, words[0]!.toLowerCase() + words.slice(1), value, bounds?.(store));
  }
  for (const m of s.machines) number(`machines.${m.name}.clockOffsetMs`, `clock offset of ${m.name} (ms)`, m.clockOffsetMs);
  // A store on each client's own machine (flock, a semaphore) sends nothing over the network.
  if (caps.scope === 'remote') {
    number('network.latencyMaxMs', 'network latency, most (ms)', s.network.latencyMaxMs);
    number('network.loss', 'network loss (share of messages)', s.network.loss);
  }
  out.push({ path: 'resource.fencing', label: 'fencing', value: s.resource.fencing, kind: 'boolean' });
  return out;
}

/**
 * The parameter a scenario's sweep starts from: the size of the fault its
 * story turns on (a pause's length, a restart's time down), else the TTL
 * every client shares, else the first client's TTL, else the first offered.
 */
export function leadChoice(choices: readonly ParamChoice[]): ParamChoice | undefined {
  return (
    choices.find((c) => c.path.startsWith('faults[') && !c.path.endsWith('.atMs')) ??
    choices.find((c) => c.path.startsWith('clients[*].')) ??
    choices.find((c) => c.path.endsWith('.ttlMs')) ??
    choices[0]
  );
}

/** Shares (a chance, a loss, a drift allowance) lie in 0 to 1, and durations, sizes and rates are never negative; a clock may be set or moved either way. */
function boundsOf(path: string): Bounds | undefined {
  const field = path.slice(path.lastIndexOf('.') + 1);
  if (field === 'clockOffsetMs' || field === 'byMs' || field === 'driftPpm') return undefined;
  if (field === 'probability' || field === 'loss') return { min: 0, max: 1 };
  if (field === 'driftFactor') return { min: 0, max: 0.5 };
  return { min: 0, max: Number.POSITIVE_INFINITY };
}

/** A round step near (to - from) / 10: 1, 2 or 5 times a power of ten. */
export function niceStep(span: number): number {
  if (span <= 0) return 1;
  const raw = span / 10;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/**
 * A range around a value to start from: half to one and a half times it, or
 * ±500 around zero, in about ten steps; kept within `bounds` when the
 * scenario allows fewer values.
 */
export function defaultRange(value: number, bounds?: Bounds): { from: number; to: number; step: number } {
  const r = aroundValue(value, bounds);
  if (bounds === undefined) return r;
  const from = Math.max(r.from, Math.ceil(bounds.min / r.step) * r.step);
  const to = Math.min(r.to, Math.floor(bounds.max / r.step) * r.step);
  return { from, to, step: r.step };
}

function aroundValue(value: number, bounds: Bounds | undefined): { from: number; to: number; step: number } {
  if (value === 0) {
    if (bounds !== undefined && bounds.max <= 1) return { from: 0, to: 0.2, step: 0.02 };
    return bounds !== undefined && bounds.min >= 0 ? { from: 0, to: 1000, step: 100 } : { from: -500, to: 500, step: 100 };
  }
  if (value > 0 && value < 1) return { from: 0, to: Math.min(1, value * 2), step: niceStep(Math.min(1, value * 2)) };
  const a = Math.min(value * 0.5, value * 1.5);
  const b = Math.max(value * 0.5, value * 1.5);
  const step = niceStep(b - a);
  return { from: Math.floor(a / step) * step, to: Math.ceil(b / step) * step, step };
}
