import { describe, expect, it } from 'vitest';
import { check } from '../sim/check/checker.js';
import { summarize } from '../sim/check/summary.js';
import { TraceBuilder } from './support/trace-builder.js';

/* The availability measures, on traces written by hand: lock-out time and work without the lock. */

const of = (t: TraceBuilder, client: string) => check(t.events).availability.find((a) => a.client === client)!;

/** B denied while A holds the lock; A releases at 51 µs; B asks again at 100 µs and is granted. */
function deniedThenFree(): TraceBuilder {
  return new TraceBuilder()
    .granted(0, 'A:1')
    .believes(1, 'A', 'A:1')
    .client(10, 'acquire.request', 'B', { owner: 'B:1' })
    .client(12, 'acquire.denied', 'B', { owner: 'B:1' })
    .client(50, 'release.request', 'A', { owner: 'A:1' })
    .ended(51, 'lock.released', 'A:1')
    .client(100, 'acquire.request', 'B', { owner: 'B:1' })
    .granted(101, 'B:1')
    .believes(102, 'B', 'B:1');
}

describe('lock-out time', () => {
  it('is nothing for a client that asks for a free lock and gets it', () => {
    const t = new TraceBuilder().client(0, 'acquire.request', 'B', { owner: 'B:1' }).granted(1, 'B:1').believes(2, 'B', 'B:1');
    expect(of(t, 'B')).toMatchObject({ waitedUs: 2, lockOutUs: 0, lockOut: [] });
  });

  it('counts, once the store kept the client out, the time the key was free until its grant', () => {
    const t = deniedThenFree();
    const b = of(t, 'B');
    expect(b.waitedUs).toBe(92);
    expect(b.lockOutUs).toBe(51);
    expect(b.lockOut).toEqual([{ fromUs: 51, toUs: 102, why: 'free', holder: null, seqs: [2, 5, 8] }]);
  });

  it('is said as time nobody was using the lock, not as being locked out while the key was free', () => {
    const t = deniedThenFree();
    const said = summarize(check(t.events)).join(' ');
    expect(said).toContain(
      'B waited 92 µs for the lock, 51 µs of it while nobody was using the lock (its lock-out time): 51 µs while the key was free and B had not taken it yet.',
    );
    expect(said).not.toMatch(/locked out/);
  });

  it('counts the time the key was held by a process that is gone, or that holds it without believing', () => {
    const crashed = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .client(10, 'acquire.request', 'B', { owner: 'B:1' })
      .client(11, 'acquire.denied', 'B', { owner: 'B:1' })
      .crash(20, 'A')
      .client(500, 'acquire.giveup', 'B', { owner: 'B:1' });
    expect(of(crashed, 'B')).toMatchObject({ lockOutUs: 480, lockOut: [{ fromUs: 20, toUs: 500, why: 'holder-gone', holder: 'A' }] });
    const orphaned = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .client(10, 'acquire.request', 'B', { owner: 'B:1' })
      .client(11, 'acquire.denied', 'B', { owner: 'B:1' })
      .client(20, 'release.skipped', 'A', { owner: 'A:1', reason: 'boom' })
      .client(500, 'acquire.giveup', 'B', { owner: 'B:1' });
    expect(of(orphaned, 'B').lockOut).toMatchObject([{ fromUs: 20, toUs: 500, why: 'orphaned', holder: 'A' }]);
    expect(summarize(check(orphaned.events)).join(' ')).toMatch(
      /B waited 490 µs for the lock, 480 µs of it while nobody was using the lock \(its lock-out time\): 480 µs while its holder A still held it without using it/,
    );
  });

  it('does not count a holder whose release, or whose grant, is still on its way', () => {
    const t = new TraceBuilder()
      .client(0, 'acquire.request', 'A', { owner: 'A:1' })
      .granted(5, 'A:1')
      .client(6, 'acquire.request', 'B', { owner: 'B:1' })
      .client(7, 'acquire.denied', 'B', { owner: 'B:1' })
      .believes(30, 'A', 'A:1')
      .client(40, 'release.request', 'A', { owner: 'A:1' })
      .ended(60, 'lock.released', 'A:1')
      .client(60, 'acquire.giveup', 'B', { owner: 'B:1' });
    expect(of(t, 'B').lockOutUs).toBe(0);
  });
});

describe('work without the lock', () => {
  it('is the time of work steps while no store holds the owner’s lock, pauses excepted', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .client(1, 'work.start', 'A', { owner: 'A:1', data: { workUs: 1000 } }, 'A:1')
      .client(100, 'process.pause', 'A', { data: { durationUs: 400 } }, 'A:1')
      .ended(200, 'lock.expired', 'A:1')
      .client(500, 'process.resume', 'A', {}, 'A:1')
      .client(1100, 'write.request', 'A', { owner: 'A:1', peer: 'resource', msg: 1 }, 'A:1');
    const a = of(t, 'A');
    // Worked 1..100 and 500..1100; of that, 500..1100 without the lock.
    expect(a.workedUs).toBe(699);
    expect(a.workWithoutLockUs).toBe(600);
    expect(a.workWithoutLock).toEqual([{ fromUs: 500, toUs: 1100, seqs: [2, 6] }]);
  });

  it('counts the refreshes a work step makes as part of it', () => {
    const t = new TraceBuilder()
      .granted(0, 'A:1')
      .believes(1, 'A', 'A:1')
      .client(1, 'work.start', 'A', { owner: 'A:1', data: { workUs: 300 } }, 'A:1')
      .client(100, 'refresh.request', 'A', { owner: 'A:1', peer: 'redis', msg: 1 }, 'A:1')
      .client(102, 'refresh.ok', 'A', { owner: 'A:1', msg: 1 }, 'A:1')
      .client(302, 'release.request', 'A', { owner: 'A:1', peer: 'redis', msg: 2 });
    expect(of(t, 'A').workedUs).toBe(301);
  });
});
