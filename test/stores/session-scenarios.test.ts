import { describe, expect, it } from 'vitest';
import { replay } from 'locklab/testing';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { storeKind } from '../../sim/stores/registry.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { pinOutcomes, runBuiltin, type Pinned } from '../support/pinned.js';

const S = 1_000_000;

const run = runBuiltin;

const of = (doc: TraceDocument, kind: string, actor?: string) => doc.events.filter((e) => e.kind === kind && (actor === undefined || e.actor === actor));

/** The session stores' hazard scenarios and their fix variants, with the outcome each must have. */
const PINNED: Pinned[] = [
  { name: 'postgres-connection-loss', sets: [], outcome: 'unsafe' },
  // No lock-side fix exists (advisory locks give no token). Checking the lock on the same connection before
  // writing — Symfony's refresh is a pg_locks query — catches this loss, though a loss between check and write
  // would still slip through.
  { name: 'postgres-connection-loss', sets: ['clients.A.refreshEveryMs=1000'], outcome: 'safe' },
  { name: 'zookeeper-session-expiry', sets: [], outcome: 'unsafe' },
  // The recipe's token alone changes nothing: the resource must check it.
  { name: 'zookeeper-session-expiry', sets: ['store.kind=zookeeper-recipe'], outcome: 'unsafe' },
  { name: 'zookeeper-session-expiry', sets: ['store.kind=zookeeper-recipe', 'resource.fencing=true'], outcome: 'fenced' },
  { name: 'etcd-revision-fencing', sets: [], outcome: 'fenced' },
  { name: 'etcd-revision-fencing', sets: ['resource.fencing=false'], outcome: 'unsafe' },
];

describe('session-store scenarios', () => {
  it('each store kind names its own hazard scenario, which exists', () => {
    for (const kind of ['postgres', 'zookeeper', 'zookeeper-recipe', 'etcd']) {
      const hazard = storeKind(kind)!.hazardScenario;
      expect(BUILTIN_SCENARIOS[hazard], kind).toBeDefined();
    }
  });

  pinOutcomes(new URL('../golden/session.json', import.meta.url), PINNED);

  it('every seed tells the same stories', () => {
    for (let seed = 0; seed < 20; seed++) {
      expect(replay('postgres-connection-loss', { seed })).toBeUnsafe();
      expect(replay('zookeeper-session-expiry', { seed })).toBeUnsafe();
      expect(replay('zookeeper-session-expiry', { seed, set: { 'store.kind': 'zookeeper-recipe', 'resource.fencing': true } })).toBeFenced();
      expect(replay('etcd-revision-fencing', { seed })).toBeFenced();
    }
  });
});

describe('the stories the session scenarios tell', () => {
  it("postgres-connection-loss: the server frees A's lock when A's connection drops, B gets it at once, and A, never told, writes after B", () => {
    const doc = run('postgres-connection-loss');
    const lost = of(doc, 'lock.lost')[0]!;
    expect(lost).toMatchObject({ owner: 'A:1', reason: 'connection lost', timeUs: 2.5 * S });
    expect(of(doc, 'lock.granted').map((e) => [e.owner, e.timeUs])).toEqual([
      ['A:1', expect.any(Number)],
      ['B:1', lost.timeUs],
    ]);
    expect(of(doc, 'write.accepted').map((e) => e.owner)).toEqual(['B:1', 'A:1']);
    // A still believed when it wrote, and heard of the loss only at its release afterwards.
    expect(of(doc, 'write.request', 'A')[0]!.believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(of(doc, 'session.lost', 'A')[0]!.timeUs).toBeGreaterThan(of(doc, 'write.accepted').at(-1)!.timeUs);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', fence: null, accepted: true }]);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'] }]);
  });

  it('postgres-connection-loss with a check before writing: A’s refresh hits the dead connection and A stops before writing', () => {
    const doc = run('postgres-connection-loss', ['clients.A.refreshEveryMs=1000']);
    expect(of(doc, 'refresh.failed', 'A')[0]).toMatchObject({ reason: 'connection lost', believes: { holds: false } });
    expect(of(doc, 'write.request', 'A')).toEqual([]);
    expect(doc.verdict.staleWrites).toEqual([]);
  });

  it('zookeeper-session-expiry: the pause outlasts the 6 s session, the node vanishes on the next tick, B creates it and A writes after waking', () => {
    const doc = run('zookeeper-session-expiry');
    const pause = of(doc, 'process.pause', 'A')[0]!;
    const ended = of(doc, 'session.ended')[0]!;
    const resume = of(doc, 'process.resume', 'A')[0]!;
    expect(ended).toMatchObject({ peer: 'A', timeUs: 8 * S });
    expect(pause.timeUs).toBeLessThan(ended.timeUs);
    expect(of(doc, 'lock.lost')[0]).toMatchObject({ owner: 'A:1', reason: 'session expired', timeUs: 8 * S });
    const bGranted = of(doc, 'lock.granted').find((e) => e.owner === 'B:1')!;
    expect(bGranted.timeUs).toBeGreaterThan(ended.timeUs);
    expect(bGranted.fence).toBeUndefined();
    expect(of(doc, 'write.accepted').map((e) => e.owner)).toEqual(['B:1', 'A:1']);
    expect(of(doc, 'write.accepted').at(-1)!.timeUs).toBeGreaterThan(resume.timeUs);
    expect(of(doc, 'release.lost', 'A')[0]!.reason).toBe('session expired');
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'lost', reason: 'session expired' }]);
  });

  it('zookeeper-session-expiry with the recipe and a checking resource: czxid 33 is rejected after B wrote with a higher one', () => {
    const doc = run('zookeeper-session-expiry', ['store.kind=zookeeper-recipe', 'resource.fencing=true']);
    const grants = of(doc, 'lock.granted').map((e) => [e.owner, e.fence]);
    expect(grants[0]).toEqual(['A:1', 33]);
    expect(grants[1]![0]).toBe('B:1');
    expect(grants[1]![1]).toBeGreaterThan(33);
    expect(of(doc, 'write.rejected')[0]).toMatchObject({ owner: 'A:1', fence: 33, data: { highestFence: grants[1]![1] } });
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', fence: 33, accepted: false }]);
  });

  it('etcd-revision-fencing: A’s lease runs out during its pause, B (revision 34) is next in line, and A’s write with 33 is rejected', () => {
    const doc = run('etcd-revision-fencing');
    const expired = of(doc, 'lock.expired')[0]!;
    expect(expired).toMatchObject({ owner: 'A:1', fence: 33, reason: 'lease expired', timeUs: 5.5 * S });
    expect(of(doc, 'lock.queued')[0]).toMatchObject({ owner: 'B:1', data: { created: 34 } });
    expect(of(doc, 'lock.granted').map((e) => [e.owner, e.fence, e.timeUs])).toEqual([
      ['A:1', 33, expect.any(Number)],
      ['B:1', 34, expired.timeUs],
    ]);
    expect(of(doc, 'write.accepted').map((e) => [e.owner, e.fence])).toEqual([['B:1', 34]]);
    expect(of(doc, 'write.rejected')[0]).toMatchObject({ owner: 'A:1', fence: 33, data: { highestFence: 34 } });
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'] }]);
  });

  it('etcd-revision-fencing without fencing: the same run, and A’s write with 33 corrupts the resource', () => {
    const doc = run('etcd-revision-fencing', ['resource.fencing=false']);
    expect(of(doc, 'write.accepted').map((e) => [e.owner, e.fence])).toEqual([
      ['B:1', 34],
      ['A:1', 33],
    ]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', fence: 33, accepted: true }]);
  });
});
