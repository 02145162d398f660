import { describe, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { grouped, LIMITS } from '../../sim/scenario/limits.js';
import { INCR_OVERFLOW } from '../../sim/stores/redis.js';
import { SessionLockNode } from '../../sim/stores/session.js';
import type { LockOp } from '../../sim/stores/types.js';
import { acquire, RedisHarness } from '../support/redis-harness.js';
import { refusal } from '../support/refusal.js';
import { NodeHarness } from '../support/session-harness.js';

/*
 * Regression: the schema let Redis's INCR counter start at 2^53 − 1, where
 * a JavaScript number stops counting one by one; two holders got the same
 * token and fencing accepted a stale write.
 */

const S = 1_000_000;
const MAX = Number.MAX_SAFE_INTEGER;

const twoHolders = (store: Record<string, unknown>) => ({
  name: 'counter-at-the-top',
  machines: [{ name: 'app1' }, { name: 'app2' }, { name: 'db' }],
  store: { machine: 'db', ...store },
  resource: { machine: 'db', fencing: true },
  clients: [
    { name: 'A', machine: 'app1', ttlMs: 2000, workMs: 3000 },
    { name: 'B', machine: 'app2', startMs: 2500, ttlMs: 2000, workMs: 100, acquire: { retries: 3, retryDelayMs: 500 } },
  ],
});

describe('fencing counters near 2^53', () => {
  it('the schema refuses a Redis fencingTokenStart past the counter-start limit, naming the field and the limit', () => {
    expect(refusal(twoHolders({ kind: 'redis', fencingTokenStart: MAX }))).toContain(
      `store.fencingTokenStart: must be at most ${grouped(LIMITS.maxCounterStart)}`,
    );
  });

  it('the schema refuses a ZooKeeper zxidStart and an etcd revisionStart past the same limit', () => {
    expect(refusal(twoHolders({ kind: 'zookeeper-recipe', zxidStart: MAX }))).toContain(`store.zxidStart: must be at most ${grouped(LIMITS.maxCounterStart)}`);
    expect(refusal(twoHolders({ kind: 'etcd', revisionStart: MAX }))).toContain(`store.revisionStart: must be at most ${grouped(LIMITS.maxCounterStart)}`);
  });

  it('at the highest start the schema allows, tokens still strictly increase and fencing rejects the stale write', () => {
    const doc = runScenario(normalizeScenario(twoHolders({ kind: 'redis', fencingTokenStart: LIMITS.maxCounterStart }), 'top.json'));
    const fences = doc.events.filter((e) => e.kind === 'lock.granted').map((e) => e.fence!);
    expect(fences).toEqual([LIMITS.maxCounterStart, LIMITS.maxCounterStart + 1]);
    expect(doc.verdict.staleWrites.every((w) => !w.accepted)).toBe(true);
    expect(doc.verdict.outcome).toBe('fenced');
  });

  it('a Redis counter at 2^53 − 1 refuses the next grant the way INCR refuses to overflow, instead of repeating a token', () => {
    const h = new RedisHarness({ fencingTokenStart: MAX - 1 });
    expect(h.at(0, 'A', acquire('A:1', S))).toEqual({ ok: true, fence: MAX - 1 });
    expect(h.at(2 * S, 'B', acquire('B:1', S))).toEqual({ ok: true, fence: MAX });
    // The counter is full: no lock without a fresh token.
    expect(h.at(4 * S, 'C', acquire('C:1', S))).toEqual({ ok: false, error: INCR_OVERFLOW });
    expect(h.at(4 * S, 'C', { op: 'set', key: 'job', owner: 'C:1', ttlUs: S })).toEqual({ ok: false, error: INCR_OVERFLOW });
    expect(h.kinds().filter((k) => k.includes('lock.granted'))).toHaveLength(2);
  });

  it('a session counter (zxid, revision) at 2^53 − 1 refuses to create another lock key', () => {
    const h = new NodeHarness(
      (w) =>
        new SessionLockNode(w, 'etcd', 'db', {
          queue: true,
          fencing: true,
          counterStart: MAX,
          expiryStepUs: S / 2,
          word: 'lease',
          lossKind: 'lock.expired',
          lossReason: 'lease expired',
        }),
    );
    const lock = (owner: string, session: string): Record<string, unknown> => ({
      ...({ op: 'acquire', key: 'job', owner, ttlUs: S } satisfies LockOp),
      session,
      fresh: true,
      timeoutUs: 6 * S,
    });
    expect(h.at(0, 'A', lock('A:1', 'A#1'))).toEqual({ ok: true, fence: MAX });
    expect(h.at(S, 'A', { op: 'release', key: 'job', owner: 'A:1', session: 'A#1', fresh: false, timeoutUs: 6 * S })).toMatchObject({ ok: true });
    expect(h.at(2 * S, 'B', lock('B:1', 'B#1'))).toEqual({ ok: false, error: 'the write counter is exhausted (2^53 − 1)' });
  });
});
