import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { check } from '../sim/check/checker.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { TRACE_SCHEMA, type TraceDocument, type TraceEvent } from '../sim/trace/types.js';
import { explainStaleWrites, tokenOrderViolations } from './support/fencing-limits.js';
import { randomScenarioOf, TOKEN_KINDS } from './support/random-scenario.js';
import { TraceBuilder } from './support/trace-builder.js';

/** Fault schedules per store kind in CI; `npm run fuzz` runs 10,000 of each. */
const RUNS = 400;

/** A trace document around hand-written events, judged by the checker. */
function judged(events: TraceEvent[]): TraceDocument {
  const doc = { schema: TRACE_SCHEMA, source: 'sim', seed: 1, stop: { reason: 'completed', events: 0, timeUs: 0 }, events, verdict: check(events) };
  return doc as unknown as TraceDocument;
}

describe('with fencing on, a stale write gets through only by a documented limit of fencing (docs/fencing.md)', () => {
  it('the stores with a token source are Redis, the ZooKeeper recipe and etcd', () => {
    expect([...TOKEN_KINDS].sort()).toEqual(['etcd', 'redis', 'zookeeper-recipe']);
  });

  for (const kind of TOKEN_KINDS) {
    it(`${kind}: across ${RUNS} random fault schedules, tokens rise with every grant and every accepted stale write is a documented limit`, () => {
      fc.assert(
        fc.property(randomScenarioOf(kind, { fencing: true, maxFaults: 8, contended: true }), (raw) => {
          const doc = runScenario(normalizeScenario(raw, 'random'));
          const hint = `Scenario: ${JSON.stringify(raw)}`;
          expect(tokenOrderViolations(doc), hint).toEqual([]);
          const unexplained = explainStaleWrites(doc).filter((x) => x.limit === null);
          expect(
            unexplained.map((u) => u.detail),
            hint,
          ).toEqual([]);
        }),
        { numRuns: RUNS, seed: 14 },
      );
    });
  }

  it('the oracle names each limit: an unseen newer token, a counter lost in a restart, tokens from two counters', () => {
    const unseen = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1').ended(10, 'lock.expired', 'A:1').granted(20, 'B:1').write(30, 'A:1', true, 1);
    expect(explainStaleWrites(judged(unseen.events)).map((x) => x.limit)).toEqual(['newer-token-unseen']);

    const restart = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1');
    restart.events.push({ seq: restart.events.length, timeUs: 5, kind: 'store.down', actor: 'redis', machine: 'db', data: { persistence: 'none' } });
    restart.ended(6, 'lock.lost', 'A:1').granted(20, 'B:1').write(30, 'B:1', true, 1).write(40, 'A:1', true, 1);
    expect(explainStaleWrites(judged(restart.events)).map((x) => x.limit)).toEqual(['counter-lost-in-restart']);

    const split = new TraceBuilder()
      .granted(0, 'A:1', 'v1:job')
      .believes(1, 'A', 'A:1')
      .granted(20, 'B:1', 'v2:job')
      .believes(21, 'B', 'B:1')
      .write(30, 'B:1', true, 1)
      .write(40, 'A:1', true, 33);
    expect(explainStaleWrites(judged(split.events)).map((x) => x.limit)).toEqual(['tokens-from-two-counters']);
  });

  it('the oracle flags a newer holder handed the same token with no restart between, as a counter past 2^53 did', () => {
    const t = new TraceBuilder().granted(0, 'A:1').believes(1, 'A', 'A:1').ended(10, 'lock.expired', 'A:1').granted(20, 'B:1');
    t.events[t.events.length - 1] = { ...t.events[t.events.length - 1]!, fence: 2 ** 53 };
    t.events[0] = { ...t.events[0]!, fence: 2 ** 53 };
    t.write(30, 'B:1', true, 2 ** 53).write(40, 'A:1', true, 2 ** 53);
    const doc = judged(t.events);
    expect(tokenOrderViolations(doc)).toEqual([`redis granted job to B:1 with token ${2 ** 53}, not above its earlier ${2 ** 53} (event 3)`]);
    expect(explainStaleWrites(doc).map((x) => x.limit)).toEqual([null]);
  });
});
