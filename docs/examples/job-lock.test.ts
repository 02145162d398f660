// Pinning a lock scenario of our own in a Vitest suite with locklab/testing.
import { describe, expect, it } from 'vitest';
import { replay, scenario } from 'locklab/testing';

// The nightly job takes a 10 s Redis lease and works for 3 s; the worst GC
// pause we have seen is 15 s. A second worker starts 5 s later and retries.
const nightlyJob = scenario('nightly-job-gc-pause')
  .redis({ fencingTokenStart: 33 })
  .client('A', { ttlMs: 10_000, workMs: 3_000 })
  .client('B', { startMs: 5_000, ttlMs: 10_000, workMs: 1_000, acquire: { retries: 10, retryDelayMs: 2_000 } })
  .pause('A', { at: 1_000, for: 15_000 });

describe('the nightly job under a long GC pause', () => {
  it('lets both workers believe they hold the lock', () => {
    expect(nightlyJob.run({ seed: 7 })).toHaveDoubleOwnership('A', 'B');
  });

  it('corrupts the report when the storage does not check fencing tokens', () => {
    const run = nightlyJob.run({ seed: 7 });
    expect(run).toBeUnsafe();
    expect(run).toHaveAcceptedStaleWrite(33);
  });

  it('is harmless with fencing: the storage rejects the paused worker, token 33', () => {
    const run = nightlyJob.fencing().run({ seed: 7 });
    expect(run).toBeFenced();
    expect(run).toHaveRejectedWrite(33);
  });

  it('with fencing, no seed lets a stale write through', () => {
    for (let seed = 1; seed <= 20; seed++) expect(nightlyJob.fencing().run({ seed })).not.toHaveAcceptedStaleWrite();
  });

  it('a crash instead of a pause only costs time: the lease frees the lock for B', () => {
    const crashed = scenario('nightly-job-crash')
      .redis()
      .client('A', { ttlMs: 10_000, workMs: 3_000 })
      .client('B', { startMs: 5_000, ttlMs: 10_000, acquire: { retries: 10, retryDelayMs: 2_000 } })
      .crash('A', { at: 1_000 });
    expect(crashed.run({ seed: 7 })).toBeSafe();
  });

  it('built-in scenarios replay by name, with the same overrides the command takes', () => {
    expect(replay('pause-past-expiry', { seed: 7, set: { 'resource.fencing': true } })).toBeFenced();
  });
});
