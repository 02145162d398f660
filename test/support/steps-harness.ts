import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';

/*
 * Scenarios for step tests: one store of a chosen kind, clients that run
 * steps, all on one machine (so per-machine stores contend too), and a
 * compact reading of what each client's calls returned.
 */

/** Every store kind, set up on machine "db" (the per-machine kinds need none), with their Symfony class where there is one. */
export const STORES: Readonly<Record<string, Record<string, unknown>>> = {
  redis: { kind: 'redis', machine: 'db' },
  memcached: { kind: 'memcached', machine: 'db' },
  sql: { kind: 'sql', machine: 'db' },
  mongodb: { kind: 'mongodb', machine: 'db' },
  postgres: { kind: 'postgres', machine: 'db' },
  zookeeper: { kind: 'zookeeper', machine: 'db' },
  'zookeeper-recipe': { kind: 'zookeeper-recipe', machine: 'db' },
  etcd: { kind: 'etcd', machine: 'db' },
  flock: { kind: 'flock' },
  semaphore: { kind: 'semaphore' },
  // One round per call, as Symfony stores make one attempt (node-redlock's own retries would hide a refusal).
  redlock: { kind: 'redlock', retryCount: 0, nodes: [1, 2, 3].map((i) => ({ name: `n${i}`, machine: 'db' })) },
  combined: { kind: 'combined', strategy: 'consensus', stores: [1, 2, 3].map((i) => ({ kind: 'redis', name: `r${i}`, machine: 'db' })) },
  'lock-row': { kind: 'lock-row', machine: 'db' },
};

export const KINDS = Object.keys(STORES);

export interface StepClient {
  name: string;
  startMs?: number;
  ttlMs?: number;
  key?: string;
  autoRelease?: boolean;
  machine?: string;
  requestTimeoutMs?: number;
  steps: unknown[];
}

/** Runs clients with steps against a store of `kind` (or a store object), with faults, and returns the trace. */
export function runSteps(
  store: string | Record<string, unknown>,
  clients: StepClient[],
  faults: unknown[] = [],
  extra: Record<string, unknown> = {},
): TraceDocument {
  const doc = {
    name: 'steps-test',
    seed: 1,
    machines: [{ name: 'app' }, { name: 'app2' }, { name: 'db' }],
    store: typeof store === 'string' ? STORES[store] : store,
    clients: clients.map((c) => ({ machine: 'app', ttlMs: 5000, ...c })),
    faults,
    ...extra,
  };
  return runScenario(normalizeScenario(doc, 'steps-test'));
}

/** What each call of `actor` came to, in order: `acquire`, `acquire:false`, `isAcquired`, `!isAcquired`, `release`, `release:lost`, `refresh`, the exception kinds... */
export function results(doc: TraceDocument, actor: string): string[] {
  const out: string[] = [];
  for (const e of doc.events) {
    if (e.actor !== actor) continue;
    const r = RESULT[e.kind];
    if (r !== undefined) out.push(r);
    else if (e.kind.startsWith('exception.')) out.push(e.kind);
  }
  return out;
}

const RESULT: Readonly<Record<string, string>> = {
  'acquire.ok': 'acquire',
  'acquire.giveup': 'acquire:false',
  'isAcquired.yes': 'isAcquired',
  'isAcquired.no': '!isAcquired',
  'release.ok': 'release',
  'release.lost': 'release:lost',
  'refresh.ok': 'refresh',
  'check.ok': 'isExpired:false',
  'check.expired': 'isExpired:true',
  'write.done': 'write',
  'autorelease.check': 'destruct',
};

export const pick = (doc: TraceDocument, kind: string, actor?: string): TraceEvent[] =>
  doc.events.filter((e) => e.kind === kind && (actor === undefined || e.actor === actor));

export const one = (doc: TraceDocument, kind: string, actor?: string): TraceEvent => {
  const e = pick(doc, kind, actor)[0];
  if (e === undefined) throw new Error(`no ${kind}${actor === undefined ? '' : ` by ${actor}`} in the trace`);
  return e;
};

/** Shorthands for steps. */
export const S = {
  acquire: (o: Record<string, unknown> = {}) => ({ step: 'acquire', onFailure: 'ignore', ...o }),
  acquireRead: (o: Record<string, unknown> = {}) => ({ step: 'acquireRead', onFailure: 'ignore', ...o }),
  refresh: (ttlMs?: number) => (ttlMs === undefined ? { step: 'refresh' } : { step: 'refresh', ttlMs }),
  isAcquired: { step: 'isAcquired' },
  release: { step: 'release' },
  sleep: (durationMs: number) => ({ step: 'sleep', durationMs }),
  work: (durationMs: number) => ({ step: 'work', durationMs }),
  write: { step: 'write' },
  lifetime: { step: 'getRemainingLifetime' },
  isExpired: { step: 'isExpired' },
  /** try { steps } catch { } — so one exception does not end a test script. */
  attempt: (...steps: unknown[]) => ({ step: 'repeat', steps, catch: true }),
};
