import { describe, expect, it } from 'vitest';
import type { TraceDocument } from '../../sim/trace/types.js';
import { pinOutcomes, runBuiltin, type Pinned } from '../support/pinned.js';

const run = runBuiltin;

/** The fix for each hazard, as `--set` overrides. */
const FIX: Record<string, string[]> = {
  // One machine, one kernel: B's flock waits for A's.
  'flock-across-servers': ['clients.B.machine=app1'],
  // One container, one IPC namespace: B's sem_acquire waits for A's.
  'semaphore-two-containers': ['clients.B.machine=container-a'],
  // Lock files outside the release directory, in the directory every release shares.
  'deploy-config-change': ['store.lockDir=/var/www/shared/var/lock', 'faults[0].store.lockDir=/var/www/shared/var/lock'],
};

const PINNED: Pinned[] = [
  { name: 'flock-across-servers', sets: [], outcome: 'unsafe' },
  { name: 'flock-across-servers', sets: FIX['flock-across-servers']!, outcome: 'safe' },
  { name: 'semaphore-two-containers', sets: [], outcome: 'unsafe' },
  { name: 'semaphore-two-containers', sets: FIX['semaphore-two-containers']!, outcome: 'safe' },
  { name: 'deploy-config-change', sets: [], outcome: 'unsafe' },
  { name: 'deploy-config-change', sets: FIX['deploy-config-change']!, outcome: 'safe' },
];

const grants = (doc: TraceDocument): string[][] =>
  doc.events.filter((e) => e.kind === 'lock.granted').map((e) => [e.actor, e.key ?? '', e.owner ?? '', String(e.timeUs)]);
const writes = (doc: TraceDocument): string[] => doc.events.filter((e) => e.kind === 'write.accepted').map((e) => e.owner ?? '');

describe('local-store scenarios', () => {
  pinOutcomes(new URL('../golden/local.json', import.meta.url), PINNED);

  it('every hazard is unsafe and every fix safe for each seed tried', () => {
    for (const name of Object.keys(FIX)) {
      for (let seed = 0; seed < 20; seed++) {
        expect(run(name, [], seed).verdict.outcome, `locklab run ${name} --seed ${seed}`).toBe('unsafe');
        expect(run(name, FIX[name], seed).verdict.outcome, `locklab run ${name} --seed ${seed} ${FIX[name]!.join(' ')}`).toBe('safe');
      }
    }
  });
});

describe('the stories the local-store scenarios tell', () => {
  it("flock-across-servers: each server's kernel grants the same path to its own process, and A's write lands after B was granted", () => {
    const doc = run('flock-across-servers');
    expect(grants(doc)).toEqual([
      ['flock@app1', '/var/lock/app/job.lock', 'A:1', '50'],
      ['flock@app2', '/var/lock/app/job.lock', 'B:1', '200050'],
    ]);
    // Neither kernel ever made anyone wait: they never heard of each other's lock.
    expect(doc.events.some((e) => e.kind === 'lock.queued')).toBe(false);
    expect(writes(doc)).toEqual(['A:1', 'B:1']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'], fromUs: 200_100 }]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', fence: null, accepted: true, cause: { kind: 'superseded', client: 'B' } }]);
    expect(doc.verdict.lostLocks).toEqual([]);
  });

  it('flock-across-servers fixed: on one machine B waits in the kernel and is granted exactly when A releases', () => {
    const doc = run('flock-across-servers', FIX['flock-across-servers']);
    const queued = doc.events.find((e) => e.kind === 'lock.queued')!;
    expect(queued).toMatchObject({ actor: 'flock@app1', owner: 'B:1', data: { holder: 'A:1', position: 1 } });
    const released = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'A:1')!;
    const bGranted = doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')!;
    expect(bGranted.timeUs).toBe(released.timeUs);
    expect(writes(doc)).toEqual(['A:1', 'B:1']);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('semaphore-two-containers: two IPC namespaces, two semaphores for one key, two holders at once', () => {
    const doc = run('semaphore-two-containers');
    expect(grants(doc)).toEqual([
      ['semaphore@container-a', 'job', 'A:1', '50'],
      ['semaphore@container-b', 'job', 'B:1', '200050'],
    ]);
    expect(writes(doc)).toEqual(['A:1', 'B:1']);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', accepted: true }]);
  });

  it('semaphore-two-containers fixed: in one container B waits on the semaphore and A and B take turns', () => {
    const doc = run('semaphore-two-containers', FIX['semaphore-two-containers']);
    expect(grants(doc).map((g) => [g[0], g[2]])).toEqual([
      ['semaphore@container-a', 'A:1'],
      ['semaphore@container-a', 'B:1'],
    ]);
    expect(doc.events.filter((e) => e.actor === 'B' && e.kind === 'acquire.request')).toHaveLength(1);
    expect(doc.verdict.doubleOwnership).toEqual([]);
  });

  it('deploy-config-change: after the deploy B locks the release-42 path while A still holds the release-41 path on the same machine', () => {
    const doc = run('deploy-config-change');
    const deploy = doc.events.find((e) => e.kind === 'deploy.start')!;
    expect(deploy.timeUs).toBe(500_000);
    expect(grants(doc)).toEqual([
      ['flock@app1', '/var/www/releases/41/var/lock/job.lock', 'A:1', '50'],
      ['flock@app1', '/var/www/releases/42/var/lock/job.lock', 'B:1', '1000050'],
    ]);
    // B finishes first; A's write comes after B's, from a holder that had been superseded.
    expect(writes(doc)).toEqual(['B:1', 'A:1']);
    expect(doc.verdict.doubleOwnership).toMatchObject([{ clients: ['A', 'B'], fromUs: 1_000_100 }]);
    expect(doc.verdict.staleWrites).toMatchObject([{ client: 'A', accepted: true, cause: { kind: 'superseded', client: 'B' } }]);
  });

  it('deploy-config-change fixed: with the lock files in the shared directory B waits for A, whatever release it runs', () => {
    const doc = run('deploy-config-change', FIX['deploy-config-change']);
    expect(grants(doc).map((g) => g[1])).toEqual(['/var/www/shared/var/lock/job.lock', '/var/www/shared/var/lock/job.lock']);
    const aReleased = doc.events.find((e) => e.kind === 'lock.released' && e.owner === 'A:1')!;
    expect(doc.events.find((e) => e.kind === 'lock.granted' && e.owner === 'B:1')?.timeUs).toBe(aReleased.timeUs);
    expect(writes(doc)).toEqual(['A:1', 'B:1']);
  });
});
