import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { findingOf } from '../../sim/real/agreement.js';
import type { ClientLibrary } from '../../sim/real/ipc.js';
import { runReal } from '../../sim/real/runner.js';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { serializeTrace } from '../../sim/trace/io.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { describeReal } from './support.js';

const root = new URL('../..', import.meta.url).pathname;
const RUNS = 3;
/**
 * Real runs under way at once. Each is a few processes that mostly wait, but
 * their starts take CPU, and a run whose faults fire late (its runner starved
 * by others starting) would tell a different story: on two cores, six.
 */
const AT_ONCE = 6;

let running = 0;
const queue: Array<() => void> = [];
async function limited<T>(f: () => Promise<T>): Promise<T> {
  if (running >= AT_ONCE) await new Promise<void>((resolve) => queue.push(resolve));
  running++;
  try {
    return await f();
  } finally {
    running--;
    queue.shift()?.();
  }
}

/**
 * The stories whose real counterpart must tell the same ending: the same
 * outcome and the same double-ownership finding as the simulation, with
 * Locklab's own lock code and — where Symfony Lock has the store — with the
 * real Symfony Lock. Symfony is left out where it cannot play: it gives no
 * fencing token (the fenced variant), Debian packages no php-zookeeper, and
 * it has no Redlock or etcd store.
 */
/**
 * Where the real client library does something the model lacks, the real run
 * keeps the simulation's outcome but may lose its double ownership; `holds`
 * checks, in the real trace, the behaviour that explains it.
 */
interface KnownDifference {
  readonly why: string;
  holds(real: TraceDocument): boolean;
}

const after = (real: TraceDocument, kind: string): number => real.events.find((e) => e.kind === kind)?.timeUs ?? Infinity;

const KNOWN: Readonly<Record<string, KnownDifference>> = {
  'redis-restart-without-persistence-symfony': {
    why: "phpredis does not reconnect after the restart: every later call of Symfony's RedisStore throws (Redis server went away), so B never gets the lock",
    holds: (real) =>
      real.verdict.doubleOwnership.length === 0 &&
      real.events.some((e) => e.actor === 'B' && e.kind === 'acquire.error' && /went away|Connection lost/.test(e.reason ?? '')),
  },
  'memcached-restart-symfony': {
    why: "libmemcached marks the server dead after B's request fails during the restart, and Symfony's MemcachedStore reports each later add as a conflict until it retries: B can be refused until A has released",
    holds: (real) =>
      real.verdict.doubleOwnership.length === 0 &&
      real.events.some((e) => e.actor === 'B' && e.kind === 'acquire.denied' && e.timeUs > after(real, 'store.up')),
  },
};

const CASES: ReadonlyArray<{ scenario: string; sets?: readonly string[]; libraries: readonly ClientLibrary[] }> = [
  { scenario: 'pause-past-expiry', libraries: ['node', 'symfony'] },
  { scenario: 'pause-past-expiry', sets: ['resource.fencing=true'], libraries: ['node'] },
  { scenario: 'redis-restart-without-persistence', libraries: ['node', 'symfony'] },
  { scenario: 'memcached-restart', libraries: ['node', 'symfony'] },
  { scenario: 'postgres-connection-loss', libraries: ['node', 'symfony'] },
  { scenario: 'zookeeper-session-expiry', libraries: ['node'] },
  { scenario: 'sql-clock-skew', sets: ['store.clock=server'], libraries: ['node', 'symfony'] },
  { scenario: 'redlock-restart-without-delay', libraries: ['node'] },
  { scenario: 'etcd-revision-fencing', libraries: ['node'] },
  { scenario: 'combined-unanimous-node-down', libraries: ['node', 'symfony'] },
];

function saveDisagreement(label: string, i: number, sim: string, real: string): string {
  const dir = join(root, 'test-results', 'agreement');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${label}-run${i + 1}-sim.json`), sim);
  writeFileSync(join(dir, `${label}-run${i + 1}-real.json`), real);
  return dir;
}

describeReal('the simulation and the real servers tell the same story', () => {
  for (const c of CASES) {
    for (const library of c.libraries) {
      const label = `${c.scenario}${c.sets === undefined ? '' : `[${c.sets.join(',')}]`}-${library}`;
      const knownWhy = KNOWN[`${c.scenario}-${library}`]?.why;
      it.concurrent(
        `${c.scenario}${c.sets === undefined ? '' : ` with ${c.sets.join(', ')}`} ends the same on real servers with ${library === 'node' ? 'our clients' : 'Symfony Lock'}${knownWhy === undefined ? '' : ' (same outcome; the double ownership only where the real library allows it)'}, ${RUNS} runs out of ${RUNS}`,
        async () => {
          const raw = c.sets === undefined ? BUILTIN_SCENARIOS[c.scenario] : applyOverrides(BUILTIN_SCENARIOS[c.scenario] as never, c.sets.map(parseOverride));
          const scenario = normalizeScenario(raw, c.scenario);
          const sim = runScenario(scenario);
          const expected = findingOf(sim.verdict);
          const runs = await Promise.all(Array.from({ length: RUNS }, () => limited(() => runReal(scenario, { library }))));
          const saved: string[] = [];
          const known = KNOWN[`${c.scenario}-${library}`];
          const ok = (r: TraceDocument): boolean =>
            JSON.stringify(findingOf(r.verdict)) === JSON.stringify(expected) ||
            (known !== undefined && r.verdict.outcome === expected.outcome && known.holds(r));
          runs.forEach((r, i) => {
            if (!ok(r)) saved.push(saveDisagreement(label, i, serializeTrace(sim), serializeTrace(r)));
          });
          expect(runs.map((r) => r.source)).toEqual(Array(RUNS).fill('real'));
          expect(runs.map((r) => r.stop.reason)).toEqual(Array(RUNS).fill('completed'));
          const message =
            saved.length > 0 ? `traces of the disagreeing runs are in ${saved[0]}${known === undefined ? '' : ` (known difference: ${known.why})`}` : undefined;
          expect(
            runs.map((r) => (ok(r) ? expected : findingOf(r.verdict))),
            message,
          ).toEqual(Array(RUNS).fill(expected));
        },
        600_000,
      );
    }
  }
});
