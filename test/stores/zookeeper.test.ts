import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { SessionLockNode, type SessionNodeOptions } from '../../sim/stores/session.js';
import type { LockOp } from '../../sim/stores/types.js';
import { ZOOKEEPER, ZOOKEEPER_RECIPE } from '../../sim/stores/zookeeper.js';
import { NodeHarness, pick, runDoc } from '../support/session-harness.js';
import { refusal } from '../support/refusal.js';

const S = 1_000_000;
const TICK = 2 * S;

const OPTIONS: SessionNodeOptions = {
  queue: false,
  fencing: false,
  counterStart: 100,
  expiryStepUs: TICK,
  word: 'session',
  lossKind: 'lock.lost',
  lossReason: 'session expired',
};
const ephemeral = (): NodeHarness<SessionLockNode> => new NodeHarness((w) => new SessionLockNode(w, 'zookeeper', 'db', OPTIONS));
const recipe = (): NodeHarness<SessionLockNode> =>
  new NodeHarness((w) => new SessionLockNode(w, 'zookeeper', 'db', { ...OPTIONS, queue: true, fencing: true }));

/** A request on session `session` (timeout 6 s); the first request of a session opens it. */
const on = (session: string, op: LockOp | { op: 'ping' | 'close' }, fresh = false): Record<string, unknown> => ({ ...op, session, fresh, timeoutUs: 6 * S });
const lock = (owner: string, waitUs?: number | null): LockOp => ({ op: 'acquire', key: 'job', owner, ttlUs: S, waitUs });
const unlock = (owner: string): LockOp => ({ op: 'release', key: 'job', owner });

const inputIssues = (doc: unknown): string => refusal(doc);

const zkScenario = (store: Record<string, unknown>, client: Record<string, unknown> = {}): unknown => ({
  name: 'bad',
  machines: [{ name: 'app1' }, { name: 'zk' }],
  store: { machine: 'zk', ...store },
  clients: [{ name: 'A', machine: 'app1', ...client }],
});

describe("ZooKeeper, Symfony's store (STORES.md: one ephemeral node, vanishes with the session, no token)", () => {
  it('declares the capability row of the Symfony table: remote, not blocking, not expiring, not sharing, no token', () => {
    expect(ZOOKEEPER.capabilities).toMatchObject({ scope: 'remote', blocking: false, expiring: false, sharing: false, fencingToken: null });
    expect(ZOOKEEPER.capabilities.losesLockWhen.join(' ')).toMatch(/session expires.*keeps believing/);
    expect(ZOOKEEPER.faults).toEqual(['session-expiry', 'store-restart', 'deploy']);
  });

  it('refuses a second owner while the ephemeral node exists, names the holder, and hands out no token', () => {
    const h = ephemeral();
    expect(h.at(0, 'A', on('A#1', lock('A:1'), true))).toEqual({ ok: true });
    expect(h.at(S, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.events('lock.granted')[0]!.fence).toBeUndefined();
  });

  it("a refused acquirer's session is closed with it when it asks for that (endIfDenied)", () => {
    const h = ephemeral();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.at(S, 'B', { ...on('B#1', lock('B:1'), true), endIfDenied: true });
    expect(h.at(2 * S, 'B', on('B#1', { op: 'ping' }))).toEqual({ ok: false, error: 'session expired' });
  });

  it('deletes the node only for its own owner and session', () => {
    const h = ephemeral();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(1, 'B', on('B#1', unlock('A:1'), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.at(2, 'A', on('A#1', unlock('A:1')))).toEqual({ ok: true });
    expect(h.kinds()).toEqual(['0 lock.granted A:1', '2 lock.released A:1']);
  });

  it('the node vanishes when the server hears nothing for the session timeout, on the next tick boundary', () => {
    const h = ephemeral();
    h.at(1, 'A', on('A#1', lock('A:1'), true));
    h.advance(20 * S);
    // Heard at 1 µs; 6 s later is not a tick boundary, so the session ends at 8 s.
    expect(h.kinds()).toEqual(['1 lock.granted A:1', `${8 * S} session.ended`, `${8 * S} lock.lost A:1`]);
    expect(h.events('lock.lost')[0]).toMatchObject({ reason: 'session expired', peer: 'A' });
    expect(h.at(20 * S, 'A', on('A#1', { op: 'ping' }))).toEqual({ ok: false, error: 'session expired' });
    expect(h.at(20 * S, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: true });
  });

  it('heartbeats keep the session, and with it the lock, alive for as long as they arrive', () => {
    const h = ephemeral();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    for (let t = 2 * S; t <= 30 * S; t += 2 * S) expect(h.at(t, 'A', on('A#1', { op: 'ping' }))).toEqual({ ok: true });
    h.advance(36 * S - 1);
    expect(h.kinds()).toEqual(['0 lock.granted A:1']);
    h.advance(40 * S);
    expect(h.kinds()).toEqual(['0 lock.granted A:1', `${36 * S} session.ended`, `${36 * S} lock.lost A:1`]);
  });

  it('the client library pings every third of the timeout, so long work keeps the lock', () => {
    const doc = runDoc({
      store: { kind: 'zookeeper', machine: 'db', sessionTimeoutMs: 6000 },
      clients: [{ name: 'A', machine: 'app1', workMs: 30000 }],
    });
    expect(pick(doc, 'lock.lost')).toEqual([]);
    expect(pick(doc, 'write.done', 'A')).toHaveLength(1);
    expect(doc.stop.reason).toBe('completed');
  });

  it('a GC pause shorter than the session timeout loses nothing; a longer one expires the session', () => {
    const run = (pauseMs: number) =>
      runDoc({
        store: { kind: 'zookeeper', machine: 'db', sessionTimeoutMs: 6000 },
        clients: [{ name: 'A', machine: 'app1', workMs: 3000 }],
        faults: [{ kind: 'pause', target: 'A', atMs: 1000, durationMs: pauseMs }],
      });
    expect(pick(run(4000), 'lock.lost')).toEqual([]);
    const long = run(9000);
    expect(pick(long, 'lock.lost')).toMatchObject([{ owner: 'A:1', reason: 'session expired' }]);
    expect(long.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'lost' }]);
  });

  it("a partitioned client keeps believing after its session expired: ZookeeperStore's refresh() asks nothing, so A writes, and its release finds nothing", () => {
    const doc = runDoc({
      store: { kind: 'zookeeper', machine: 'db', sessionTimeoutMs: 6000 },
      clients: [{ name: 'A', machine: 'app1', workMs: 20000, refreshEveryMs: 15000 }],
      faults: [{ kind: 'partition', atMs: 1000, durationMs: 12000, groups: [['app1'], ['db']] }],
    });
    const ended = pick(doc, 'session.ended')[0]!;
    const learned = pick(doc, 'session.lost', 'A')[0]!;
    expect(ended.timeUs).toBeLessThan(13 * S);
    // Cut off, A's belief outlives the session: its library hears SESSION_EXPIRED only once the partition heals...
    expect(learned.timeUs).toBeGreaterThan(13 * S);
    expect(learned.believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', atUs: ended.timeUs }]);
    // ...but the Lock is never told: putOffExpiration() does nothing, so refresh() succeeds without a request.
    expect(pick(doc, 'refresh.request', 'A')).toEqual([]);
    expect(pick(doc, 'refresh.ok', 'A')[0]!.believes).toMatchObject({ holds: true });
    expect(pick(doc, 'write.request', 'A')).toHaveLength(1);
    // delete() asks exists() first, which says false on the dead session: nothing is deleted, nothing thrown.
    expect(pick(doc, 'release.lost', 'A')[0]!.reason).toBe('session expired');
    expect(doc.events.some((e) => e.actor === 'A' && e.kind.startsWith('exception.'))).toBe(false);
  });

  it('the session-expiry fault ends the session at once and the node with it', () => {
    const doc = runDoc({
      store: { kind: 'zookeeper', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1', workMs: 5000 }],
      faults: [{ kind: 'session-expiry', target: 'A', atMs: 2000 }],
    });
    expect(pick(doc, 'session.ended')[0]).toMatchObject({ timeUs: 2 * S, reason: 'session expired: session-expiry fault' });
    expect(pick(doc, 'lock.lost')[0]).toMatchObject({ timeUs: 2 * S, owner: 'A:1' });
  });

  it('a crashed client does not end its session at once: the node lasts until the timeout', () => {
    const doc = runDoc({
      store: { kind: 'zookeeper', machine: 'db', sessionTimeoutMs: 6000 },
      clients: [
        { name: 'A', machine: 'app1', workMs: 5000 },
        { name: 'B', machine: 'app2', startMs: 1500, acquire: { mode: 'blocking', waitTimeoutMs: 20000 } },
      ],
      faults: [{ kind: 'crash', target: 'A', atMs: 1000 }],
    });
    const lost = pick(doc, 'lock.lost')[0]!;
    expect(lost.timeUs).toBe(8 * S);
    expect(pick(doc, 'lock.granted', 'zookeeper').find((e) => e.owner === 'B:1')!.timeUs).toBeGreaterThan(8 * S);
  });

  it('polls when a client asks to block (the store cannot); a native wait is an Error at run time; a read lock is an ordinary one', () => {
    const doc = runDoc({
      store: { kind: 'zookeeper', machine: 'db' },
      clients: [
        { name: 'A', machine: 'app1', workMs: 1000 },
        { name: 'B', machine: 'app2', startMs: 100, acquire: { mode: 'blocking' } },
      ],
    });
    expect(pick(doc, 'acquire.denied', 'B').length).toBeGreaterThan(5);
    expect(pick(doc, 'lock.queued')).toEqual([]);
    const native = runDoc({
      store: { kind: 'zookeeper', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1', acquire: { mode: 'blocking', poll: false } }],
    });
    expect(pick(native, 'exception.unsupported', 'A')[0]!.reason).toBe('Call to undefined method ZookeeperStore::waitAndSave()');
    expect(() => normalizeScenario(zkScenario({ kind: 'zookeeper' }, { acquire: { shared: true }, writes: 0 }), 'ok.json')).not.toThrow();
  });

  it('accepts session timeouts from 2 to 20 ticks and refuses the rest, naming the field and the bounds', () => {
    for (const ms of [4000, 40000])
      expect(normalizeScenario(zkScenario({ kind: 'zookeeper', sessionTimeoutMs: ms }), 'ok.json').store.sessionTimeoutMs).toBe(ms);
    expect(inputIssues(zkScenario({ kind: 'zookeeper', sessionTimeoutMs: 3999 }))).toBe(
      'bad.json: store.sessionTimeoutMs: the zookeeper store allows session timeouts between 2 and 20 ticks (4000 to 40000 ms with tickMs 2000), got 3999',
    );
    expect(inputIssues(zkScenario({ kind: 'zookeeper-recipe', tickMs: 500, sessionTimeoutMs: 10001 }))).toContain(
      'store.sessionTimeoutMs: the zookeeper-recipe store allows session timeouts between 2 and 20 ticks (1000 to 10000 ms with tickMs 500), got 10001',
    );
  });
});

describe('the ZooKeeper lock recipe (STORES.md: EPHEMERAL|SEQUENTIAL children, the lowest holds, watch the predecessor, zxid fences)', () => {
  it('declares what differs from Symfony’s store: it blocks and has a fencing token', () => {
    expect(ZOOKEEPER_RECIPE.capabilities).toMatchObject({ scope: 'remote', blocking: true, expiring: false, sharing: false });
    expect(ZOOKEEPER_RECIPE.capabilities.fencingToken).toMatch(/czxid/);
  });

  it('the lowest child holds the lock; the others wait in the server until their predecessor goes', () => {
    const h = recipe();
    expect(h.at(0, 'A', on('A#1', lock('A:1'), true))).toEqual({ ok: true, fence: 100 });
    expect(h.at(1, 'B', on('B#1', lock('B:1', null), true))).toBe('deferred');
    expect(h.at(2, 'C', on('C#1', lock('C:1', null), true))).toBe('deferred');
    expect(h.events('lock.queued').map((e) => [e.owner, e.data?.position, e.data?.created])).toEqual([
      ['B:1', 1, 101],
      ['C:1', 2, 102],
    ]);
    h.at(S, 'A', on('A#1', unlock('A:1')));
    // Only the next in line is told (a watch on the predecessor, no herd).
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: S, reply: { ok: true, fence: 101 } }]);
    h.at(2 * S, 'B', on('B#1', unlock('B:1')));
    expect(h.late.at(-1)).toEqual({ client: 'C', msg: 3, atUs: 2 * S, reply: { ok: true, fence: 102 } });
  });

  it('a waiter that leaves the middle of the line wakes nobody', () => {
    const h = recipe();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.at(1, 'B', on('B#1', lock('B:1', null), true));
    h.at(2, 'C', on('C#1', lock('C:1', null), true));
    h.at(3, 'B', on('B#1', { op: 'close' }));
    expect(h.late).toEqual([]);
    h.at(4, 'A', on('A#1', unlock('A:1')));
    expect(h.late.map((l) => [l.client, l.reply])).toEqual([['C', { ok: true, fence: 102 }]]);
  });

  it('the fencing token is the czxid of the holder’s node and only increases', () => {
    const h = recipe();
    const tokens: number[] = [];
    for (let i = 0; i < 4; i++) {
      const reply = h.at(i * S, `C${i}`, on(`C${i}#1`, lock(`C${i}:1`), true));
      if (reply !== 'deferred' && reply.fence !== undefined) tokens.push(reply.fence);
      h.at(i * S + 1, `C${i}`, on(`C${i}#1`, unlock(`C${i}:1`)));
    }
    // Creating and deleting a node are both writes: each holder's czxid is two past the last.
    expect(tokens).toEqual([100, 102, 104, 106]);
  });

  it('a try-lock that is not lowest deletes its child again and reports the holder', () => {
    const h = recipe();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(1, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.node.lastCounter).toBe(102);
    h.at(2, 'A', on('A#1', unlock('A:1')));
    expect(h.late).toEqual([]);
  });

  it('a waiter gives up after its wait time and leaves the line', () => {
    const h = recipe();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.at(0, 'B', on('B#1', lock('B:1', 2 * S), true));
    h.advance(3 * S);
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: 2 * S, reply: { ok: false, holder: 'A:1' } }]);
    h.at(4 * S, 'A', on('A#1', unlock('A:1')));
    expect(h.events('lock.granted').map((e) => e.owner)).toEqual(['A:1']);
  });

  it('when the holder’s session expires, the next waiter is granted with a higher token', () => {
    const h = recipe();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.at(1, 'B', on('B#1', lock('B:1', null), true));
    for (let t = 2 * S; t <= 12 * S; t += 2 * S) h.at(t, 'B', on('B#1', { op: 'ping' }));
    expect(h.kinds()).toEqual(['0 lock.granted A:1', '1 lock.queued B:1', `${6 * S} session.ended`, `${6 * S} lock.lost A:1`, `${6 * S} lock.granted B:1`]);
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: 6 * S, reply: { ok: true, fence: 101 } }]);
  });

  it('a client blocks natively in a run: one request, answered when the holder releases', () => {
    const doc = runDoc({
      store: { kind: 'zookeeper-recipe', machine: 'db' },
      clients: [
        { name: 'A', machine: 'app1', workMs: 3000 },
        { name: 'B', machine: 'app2', startMs: 100, acquire: { mode: 'blocking', poll: false } },
      ],
    });
    expect(pick(doc, 'acquire.request', 'B')).toHaveLength(1);
    const released = pick(doc, 'lock.released').find((e) => e.owner === 'A:1')!;
    expect(pick(doc, 'lock.granted').find((e) => e.owner === 'B:1')!.timeUs).toBe(released.timeUs);
    expect(doc.stop.reason).toBe('completed');
  });
});
