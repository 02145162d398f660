import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { answersOf, findingOf, type Finding } from '../../sim/real/agreement.js';
import { runReal } from '../../sim/real/runner.js';
import { REAL_STORIES, storyScenario } from '../../sim/real/stories.js';
import { runScenario } from '../../sim/run.js';
import { serializeTrace } from '../../sim/trace/io.js';
import { formatTimeline } from '../../sim/cli/format.js';
import picocolors from 'picocolors';
import type { TraceDocument } from '../../sim/trace/types.js';
import { describeReal } from './support.js';
import { StepMarker } from '../../sim/clients/step-marks.js';
import { markProblems } from '../support/step-lines.js';

const root = new URL('../..', import.meta.url).pathname;
const RUNS = 3;
const plain = picocolors.createColors(false);
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
 * real Symfony Lock; and, step by step, the same answers to each client's
 * Lock calls (which acquire succeeded, which release found the lock already
 * lost and returned quietly, which call threw what). Symfony is left out
 * where it cannot play: it gives no fencing token (the fenced variant),
 * Debian packages no php-zookeeper, and it has no Redlock or etcd store.
 */
/**
 * Where the real client library does something the model lacks (listed in
 * docs/real-servers.md), a real run either ends as simulated or exactly as
 * one of `real` says, with `holds` true of its trace — the behaviour that
 * explains it — and every client but those in `answersDifferFor` answered as
 * in the simulation. Whether the real library takes that path can depend on
 * timing.
 */
interface KnownDifference {
  readonly why: string;
  readonly real: readonly Finding[];
  readonly answersDifferFor: readonly string[];
  holds(real: TraceDocument): boolean;
}

const after = (real: TraceDocument, kind: string): number => real.events.find((e) => e.kind === kind)?.timeUs ?? Infinity;

/** A's write after its lock was lost in the restart, with nobody else holding it: unprotected, not damage. */
const UNPROTECTED_ONLY: Finding = { outcome: 'safe', doubleOwnership: [] };
/** The same unprotected write, and B granted after it but before A's release: both believe for a few ms, no damage. */
const UNPROTECTED_THEN_BOTH: Finding = { outcome: 'safe', doubleOwnership: ['A+B'] };

const KNOWN: Readonly<Record<string, KnownDifference>> = {
  'redis-restart-without-persistence-symfony': {
    why: "phpredis does not reconnect after the restart: every later call of Symfony's RedisStore throws (Redis server went away), so B never gets the lock",
    real: [UNPROTECTED_ONLY],
    answersDifferFor: ['B'],
    holds: (real) =>
      real.verdict.unprotectedWrites.length === 1 &&
      real.events.some((e) => e.actor === 'B' && e.kind === 'exception.acquiring' && /went away|Connection lost/.test(e.reason ?? '')),
  },
  'memcached-restart-symfony': {
    why: "libmemcached marks the server dead after the restart and Symfony's MemcachedStore reads each later add as a conflict, so B is refused for about three seconds after the server is back: its grant at 6 s then races the end of A's 6 s of work, and A writes first, before or while B takes the lock",
    real: [UNPROTECTED_ONLY, UNPROTECTED_THEN_BOTH],
    answersDifferFor: [],
    holds: (real) =>
      real.verdict.unprotectedWrites.length === 1 &&
      real.events.some((e) => e.actor === 'B' && e.kind === 'acquire.denied' && e.timeUs > after(real, 'store.up')),
  },
};

/** Every story that plays for real, with each client that can play it, but the crash, whose recording test/recorded.test.ts checks. */
const CASES = REAL_STORIES.filter((s) => s.scenario !== 'crash-without-release');

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
        `${c.scenario}${c.sets === undefined ? '' : ` with ${c.sets.join(', ')}`} ends the same on real servers with ${library === 'node' ? 'our clients' : 'Symfony Lock'}${knownWhy === undefined ? '' : ' (or as the real library makes it, a known difference)'}, ${RUNS} runs out of ${RUNS}`,
        async () => {
          const scenario = storyScenario(c.scenario, c.sets);
          const sim = runScenario(scenario);
          const expected = findingOf(sim.verdict);
          // Each run with its step marks: which line of its code each process was on, event by event, as the lab shows it.
          const marked = await Promise.all(
            Array.from({ length: RUNS }, () =>
              limited(async () => {
                const marker = new StepMarker();
                return { doc: await runReal(scenario, { library, marks: marker }), marks: marker.marks };
              }),
            ),
          );
          const runs = marked.map((m) => m.doc);
          const known = KNOWN[`${c.scenario}-${library}`];
          const answers = (t: TraceDocument, except: readonly string[] = []): string[][] =>
            scenario.clients.filter((x) => !except.includes(x.name)).map((x) => answersOf(t, x.name));
          const json = (v: unknown): string => JSON.stringify(v);
          /** What a run is: the simulation's ending step by step, the known difference, or what it found instead. */
          const verdictOf = (r: TraceDocument): string => {
            if (json(findingOf(r.verdict)) === json(expected) && json(answers(r)) === json(answers(sim))) return 'as simulated';
            if (
              known !== undefined &&
              known.real.some((f) => json(findingOf(r.verdict)) === json(f)) &&
              known.holds(r) &&
              json(answers(r, known.answersDifferFor)) === json(answers(sim, known.answersDifferFor))
            )
              return 'as simulated';
            return `${json(findingOf(r.verdict))} ${json(answers(r))}`;
          };
          const verdicts = runs.map(verdictOf);
          const saved = runs.flatMap((r, i) => (verdicts[i] === 'as simulated' ? [] : [saveDisagreement(label, i, serializeTrace(sim), serializeTrace(r))]));
          expect(runs.map((r) => r.source)).toEqual(Array(RUNS).fill('real'));
          expect(runs.map((r) => r.stop.reason)).toEqual(Array(RUNS).fill('completed'));
          // A store down from time 0 is down before any client starts, however late a busy machine fires its timers (see runReal).
          const downFromStart = scenario.faults.flatMap((f, i) => (f.kind === 'store-restart' && f.atMs === 0 ? [i] : []));
          for (const r of runs) for (const i of downFromStart) expect(r.events.find((e) => e.kind === 'store.down' && e.data?.fault === i)?.timeUs).toBe(0);
          // The traces stay on the machine that ran the test: the message carries the first disagreeing run's timeline too.
          const first = runs.find((_, i) => verdicts[i] !== 'as simulated');
          const message =
            first !== undefined
              ? `simulated ${json(expected)} ${json(answers(sim))}; traces of the disagreeing runs are in ${saved[0]}${known === undefined ? '' : ` (known difference: ${known.why})`}\nthe first of them:\n${formatTimeline(first, plain)}`
              : undefined;
          expect(verdicts, message).toEqual(Array(RUNS).fill('as simulated'));
          // And each event happened on a line of the client's code that makes it, in every run.
          for (const m of marked) expect(markProblems(scenario, m.doc, m.marks), label).toEqual([]);
        },
        600_000,
      );
    }
  }
});
