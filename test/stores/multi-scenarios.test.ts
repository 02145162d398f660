import { describe, expect, it } from 'vitest';
import { replay } from 'locklab/testing';
import { traceHash } from '../../sim/trace/io.js';
import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';
import { pinOutcomes, runBuiltin, type Pinned } from '../support/pinned.js';

const run = runBuiltin;

/** The multi-node stores' built-in runs, each with the outcome it must have. */
const PINNED: Pinned[] = [
  { name: 'redlock-clock-jump', sets: [], outcome: 'unsafe' },
  // A step inside the drift allowance leaves C's copy alive while client1 works: client2 never reaches a majority.
  { name: 'redlock-clock-jump', sets: ['faults[1].byMs=50'], outcome: 'safe' },
  { name: 'redlock-restart-without-delay', sets: [], outcome: 'unsafe' },
  { name: 'redlock-restart-without-delay', sets: ['store.persistence=aof-always'], outcome: 'safe' },
  // The recommended delay keeps C down past the TTL: C, being down, can vote for nobody, so client1 keeps its
  // majority until it releases, and client2 must wait (asserted below).
  { name: 'redlock-restart-without-delay', sets: ['store.restartDelayMs=11000'], outcome: 'safe' },
  { name: 'combined-unanimous-node-down', sets: [], outcome: 'safe' },
  { name: 'combined-unanimous-node-down', sets: ['store.strategy=consensus'], outcome: 'safe' },
];

describe('multi-node store scenarios', () => {
  pinOutcomes(new URL('../golden/multi.json', import.meta.url), PINNED);

  it('runs twice to the same bytes', () => {
    for (const p of PINNED) expect(traceHash(run(p.name, p.sets))).toBe(traceHash(run(p.name, p.sets)));
  });
});

const grantsOf = (doc: TraceDocument, owner: string): string[] => doc.events.filter((e) => e.kind === 'lock.granted' && e.owner === owner).map((e) => e.actor);
const first = (doc: TraceDocument, pred: (e: TraceEvent) => boolean): TraceEvent => doc.events.find(pred)!;

describe('the stories the multi-node scenarios tell', () => {
  it('redlock-clock-jump: client1 holds A, B, C; C expires at the jump; client2 takes C, D, E; client1 writes last and corrupts the storage', () => {
    const doc = run('redlock-clock-jump');
    expect(grantsOf(doc, 'client1:1').sort()).toEqual(['A', 'B', 'C']);
    expect(grantsOf(doc, 'client2:1').sort()).toEqual(['C', 'D', 'E']);
    const jump = first(doc, (e) => e.kind === 'clock.jump');
    const expired = first(doc, (e) => e.kind === 'lock.expired');
    expect([expired.actor, expired.owner, expired.timeUs]).toEqual(['C', 'client1:1', jump.timeUs]);
    const writes = doc.events.filter((e) => e.kind === 'write.accepted').map((e) => e.owner);
    expect(writes).toEqual(['client2:1', 'client1:1']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['client1', 'client2'] }]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'client1', fence: null, accepted: true }]);
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'client1', how: 'expired', atUs: jump.timeUs }]);
    // Both clients' nodes counted their own grants: no token tells the storage which majority is newer.
    expect(doc.events.filter((e) => e.kind === 'write.request').every((e) => e.fence === undefined)).toBe(true);
  });

  it('redlock-clock-jump is unsafe for every seed tried', () => {
    for (let seed = 0; seed < 20; seed++) expect(replay('redlock-clock-jump', { seed })).toBeUnsafe();
  });

  it('redlock-clock-jump with a 50 ms step: client2 gets its majority only after client1 released', () => {
    const doc = run('redlock-clock-jump', ['faults[1].byMs=50']);
    const released = first(doc, (e) => e.kind === 'release.ok' && e.actor === 'client1');
    const acquired = first(doc, (e) => e.kind === 'acquire.ok' && e.actor === 'client2');
    expect(acquired.timeUs).toBeGreaterThan(released.timeUs);
    expect(doc.events.some((e) => e.kind === 'quorum.missed' && e.actor === 'client2')).toBe(true);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('redlock-restart-without-delay: C loses client1’s key at the restart, and client2 wins C, D, E', () => {
    const doc = run('redlock-restart-without-delay');
    const lost = first(doc, (e) => e.kind === 'lock.lost');
    expect([lost.actor, lost.owner, lost.reason]).toEqual(['C', 'client1:1', 'restart without persistence']);
    expect(grantsOf(doc, 'client2:1').sort()).toEqual(['C', 'D', 'E']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['client1', 'client2'] }]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'client1', accepted: true }]);
  });

  it('redlock-restart-without-delay with the restart delay: C stays down past the TTL and client2 must wait for client1', () => {
    const doc = run('redlock-restart-without-delay', ['store.restartDelayMs=11000']);
    const up = first(doc, (e) => e.kind === 'store.up' && e.actor === 'C');
    expect(up.timeUs).toBe(12_000_000);
    // Its release reaches only A and B (C is down, D and E never had it), so node-redlock would report it failed.
    const released = first(doc, (e) => e.kind === 'release.lost' && e.actor === 'client1');
    expect(released.reason).toBe('deleted on 2 of 5 nodes (3 needed)');
    const acquired = first(doc, (e) => e.kind === 'acquire.ok' && e.actor === 'client2');
    expect(acquired.timeUs).toBeGreaterThan(released.timeUs);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('redlock-restart-without-delay with AOF always: C keeps client1’s key and client2 waits', () => {
    const doc = run('redlock-restart-without-delay', ['store.persistence=aof-always']);
    expect(doc.events.some((e) => e.kind === 'lock.lost')).toBe(false);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('combined-unanimous-node-down: every attempt saves on r1, fails on r2, never asks r3, deletes everywhere, and both clients give up', () => {
    const doc = run('combined-unanimous-node-down');
    expect(doc.events.filter((e) => e.kind === 'acquire.ok')).toEqual([]);
    expect(doc.events.filter((e) => e.kind === 'acquire.giveup').map((e) => e.actor)).toEqual(['A', 'B']);
    expect(doc.events.filter((e) => e.kind === 'acquire.request' && e.peer === 'r3')).toEqual([]);
    expect(new Set(doc.events.filter((e) => e.kind === 'lock.granted').map((e) => e.actor))).toEqual(new Set(['r1']));
    const missed = doc.events.filter((e) => e.kind === 'quorum.missed');
    // A and B try twice each: every attempt misses the strategy.
    expect(missed).toHaveLength(2 + 2);
    for (const m of missed) {
      const cleanup = doc.events.filter((e) => e.kind === 'release.request' && e.actor === m.actor && e.seq > m.seq).slice(0, 3);
      expect(cleanup.map((e) => e.peer)).toEqual(['r1', 'r2', 'r3']);
    }
    expect(doc.verdict.doubleOwnership).toEqual([]);
    expect(doc.verdict.staleWrites).toEqual([]);
  });

  it('combined-unanimous-node-down with consensus: both clients get the lock, one after the other', () => {
    const doc = run('combined-unanimous-node-down', ['store.strategy=consensus']);
    expect(doc.events.filter((e) => e.kind === 'acquire.ok').map((e) => e.actor)).toEqual(['A', 'B']);
    expect(doc.events.filter((e) => e.kind === 'write.accepted').map((e) => e.owner)).toEqual(['A:1', 'B:1']);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });
});
