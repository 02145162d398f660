import { describe, expect, it } from 'vitest';
import { check } from '../../sim/check/checker.js';
import { evaluate, fillCaption, findEvent, matchingEvents, type Judged } from '../../sim/lessons/index.js';
import { runBuiltin } from '../support/pinned.js';

/* The assertion vocabulary and event queries, on the classic story and its fenced twin. */

const doc = runBuiltin('pause-past-expiry');
const fenced = runBuiltin('pause-past-expiry', ['resource.fencing=true']);
const run: Judged = { events: doc.events, verdict: check(doc.events), stop: doc.stop.reason };
const runFenced: Judged = { events: fenced.events, verdict: check(fenced.events), stop: fenced.stop.reason };

describe('event queries', () => {
  it('find the first match by default, the nth with nth, and the last with -1', () => {
    expect(findEvent(doc.events, { kind: 'acquire.denied', actor: 'B' })?.seq).toBe(8);
    expect(findEvent(doc.events, { kind: 'acquire.denied', actor: 'B', nth: 2 })?.seq).toBe(10);
    expect(findEvent(doc.events, { kind: 'acquire.denied', actor: 'B', nth: -1 })?.seq).toBe(12);
    expect(findEvent(doc.events, { kind: 'acquire.denied', actor: 'B', nth: 4 })).toBeUndefined();
  });

  it('bound matches by after and before, and match belief, token, peer and reason', () => {
    expect(matchingEvents(doc.events, { kind: 'write.accepted', after: { kind: 'process.resume' } }).map((e) => e.peer)).toEqual(['A']);
    expect(matchingEvents(doc.events, { kind: 'write.accepted', before: { kind: 'process.resume' } }).map((e) => e.peer)).toEqual(['B']);
    expect(findEvent(doc.events, { kind: 'process.resume', holds: true })?.actor).toBe('A');
    expect(findEvent(doc.events, { kind: 'lock.granted', fence: 34 })?.owner).toBe('B:1');
    expect(findEvent(doc.events, { kind: 'lock.expired', reason: 'server clock' })?.owner).toBe('A:1');
    expect(findEvent(doc.events, { kind: ['lock.expired', 'lock.granted'], nth: 2 })?.kind).toBe('lock.expired');
  });
});

describe('statements', () => {
  it('judge the outcome, one of several outcomes, and how the run stopped', () => {
    expect(evaluate({ outcome: 'unsafe' }, run).ok).toBe(true);
    expect(evaluate({ outcome: ['safe', 'fenced'] }, run)).toEqual({ ok: false, statement: 'the outcome is safe or fenced', found: 'the outcome is unsafe' });
    expect(evaluate({ outcome: ['safe', 'fenced'] }, runFenced).ok).toBe(true);
    expect(evaluate({ stopped: 'completed' }, run).ok).toBe(true);
  });

  it('find who double-owns and when', () => {
    expect(evaluate({ doubleOwnership: { clients: ['B', 'A'] } }, run).ok).toBe(true);
    expect(evaluate({ doubleOwnership: { clients: ['A', 'B'], from: { minMs: 11000, maxMs: 11100 }, lasting: { minMs: 900 } } }, run).ok).toBe(true);
    const late = evaluate({ doubleOwnership: { clients: ['A', 'B'], from: { minMs: 12000 } } }, run);
    expect(late.ok).toBe(false);
    expect(late.found).toBe('double ownership: A and B from 11.011 s for 1.002 s');
    expect(evaluate({ doubleOwnership: 'none' }, run).ok).toBe(false);
  });

  it('tell an accepted stale write from a rejected one, with its tokens', () => {
    expect(evaluate({ staleWrite: { client: 'A', fence: 33, accepted: true } }, run).ok).toBe(true);
    expect(evaluate({ staleWrite: { client: 'A', fence: 33, accepted: true } }, runFenced).ok).toBe(false);
    expect(evaluate({ rejectedWrite: { client: 'A', fence: 33, highest: 34 } }, runFenced)).toEqual({
      ok: true,
      statement: "the resource rejects A's write: 33 < 34",
      found: "A's write with token 33 rejected (highest seen 34: token lower than the highest seen)",
    });
    expect(evaluate({ rejectedWrite: { client: 'A' } }, run).found).toBe('no write was rejected');
  });

  it('say what the resource did with the writes as a sentence, with the client they came from', () => {
    expect(evaluate({ writes: { accepted: 1, rejected: 1 } }, runFenced)).toEqual({
      ok: true,
      statement: 'the resource accepted 1 write and rejected 1 write',
      found: 'it accepted 1 write and rejected 1 write',
    });
    expect(evaluate({ writes: { accepted: 3 } }, run)).toEqual({
      ok: false,
      statement: 'the resource accepted 3 writes',
      found: 'it accepted 2 writes and rejected none',
    });
    expect(evaluate({ writes: { client: 'A', accepted: 0, rejected: 0 } }, run)).toEqual({
      ok: false,
      statement: 'the resource accepted no writes and rejected no writes from A',
      found: 'it accepted 1 write from A and rejected none',
    });
  });

  it('count lost locks, writes, events and the time between two events', () => {
    expect(evaluate({ lostLock: { client: 'A', how: 'expired' } }, run).ok).toBe(true);
    expect(evaluate({ lostLock: 'none' }, run).ok).toBe(false);
    expect(evaluate({ writes: { client: 'B', accepted: 1, rejected: 0 } }, run).ok).toBe(true);
    expect(evaluate({ writes: { accepted: 1, rejected: 1 } }, runFenced).ok).toBe(true);
    expect(evaluate({ event: { kind: 'check.expired' } }, run)).toEqual({ ok: false, statement: 'there is the first check.expired', found: 'there is none' });
    expect(evaluate({ noEvent: { kind: 'acquire.error' } }, run).ok).toBe(true);
    const gap = evaluate({ gap: { from: { kind: 'lock.expired' }, to: { kind: 'acquire.ok', actor: 'B' }, minMs: 1000, maxMs: 1100 } }, run);
    expect(gap).toEqual({
      ok: true,
      statement: 'from the first lock.expired to the first acquire.ok by B takes between 1 s and 1.1 s',
      found: 'it takes 1.01 s',
    });
  });
});

describe('availability and unprotected writes', () => {
  it("read a client's lock-out time from the verdict, in range or not", () => {
    const doc = runBuiltin('finally-after-exception');
    const worker: Judged = { events: doc.events, verdict: check(doc.events), stop: doc.stop.reason };
    expect(evaluate({ lockOut: { client: 'B', minMs: 8000 } }, worker).ok).toBe(true);
    const short = evaluate({ lockOut: { client: 'B', maxMs: 1000 } }, worker);
    expect(short.ok).toBe(false);
    expect(short.statement).toBe('B waits at most 1 s while nobody is using the lock (its lock-out time)');
    expect(short.found).toMatch(/^B waited 9\.\d+ s while nobody was using the lock$/);
    expect(evaluate({ lockOut: { client: 'Z' } }, worker)).toEqual({
      ok: false,
      statement: 'Z waits some time while nobody is using the lock (its lock-out time)',
      found: 'Z never waited for the lock',
    });
  });

  it('tell a write after its own lock ended, with nobody granted since, from none', () => {
    const alone = runBuiltin('pause-past-expiry', ['clients.B.startMs=100000']);
    const lone: Judged = { events: alone.events, verdict: check(alone.events), stop: alone.stop.reason };
    expect(evaluate({ unprotectedWrite: { client: 'A' } }, lone).ok).toBe(true);
    expect(evaluate({ staleWrite: 'none' }, lone).ok).toBe(true);
    expect(evaluate({ unprotectedWrite: 'none' }, run)).toEqual({
      ok: true,
      statement: 'no write goes out after its own lock has ended',
      found: 'no unprotected write',
    });
  });
});

describe('captions', () => {
  it("quote the event's own token, time and data, and list what it lacks", () => {
    const rejected = findEvent(fenced.events, { kind: 'write.rejected' })!;
    expect(fillCaption('rejected: {fence} < {data.highestFence} at {time}', rejected)).toEqual({ text: 'rejected: 33 < 34 at 16.001 s', missing: [] });
    expect(fillCaption('{ttlLeft} and {data.nothing}', rejected).missing).toEqual(['ttlLeft', 'data.nothing']);
  });
});
