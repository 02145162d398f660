import { describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { shortLeaseNotes, sweepLeaseNotes } from '../sim/scenario/short-lease.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { cli } from './support/cli.js';

/** A job queue: workers on their own machines taking one Redis lock in turn, as the engineer would write it. */
function jobQueue(client: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return normalizeScenario(
    {
      name: 'job-queue',
      machines: [{ name: 'w1' }, { name: 'w2' }, { name: 'db' }],
      store: { kind: 'redis', machine: 'db' },
      clients: [
        { name: 'W1', machine: 'w1', ...client },
        { name: 'W2', machine: 'w2', ...client },
      ],
      ...extra,
    },
    'job-queue.json',
  );
}

describe('a lease shorter than what it must cover', () => {
  it('is noted once for the clients that share it, with the TTL it most likely meant in seconds', () => {
    const notes = shortLeaseNotes(jobQueue({ ttlMs: 30, workTime: { distribution: 'uniform', minMs: 200, maxMs: 20000 } }));
    expect(notes).toEqual([
      'Note: The leases of W1, W2 ("ttlMs": 30, 30 ms) end before even their shortest work (200 ms) does, so they work on past their lock with no fault at all. Durations are in milliseconds: did you mean 30 s, "ttlMs": 30000?',
    ]);
  });

  it('quotes the TTL in the words it is given, as a form labels it, and as the scenario file writes it by default', () => {
    const s = jobQueue({ ttlMs: 30, workMs: 200 });
    const form = (v: string) => `TTL (ms): ${v}`;
    expect(shortLeaseNotes(s, form)).toEqual([
      'Note: The leases of W1, W2 (TTL (ms): 30, 30 ms) end before their work (200 ms) does, so they work on past their lock with no fault at all. Durations are in milliseconds: did you mean 30 s, TTL (ms): 30000?',
    ]);
    expect(sweepLeaseNotes([s, jobQueue({ ttlMs: 40, workMs: 200 })], form)[0]).toContain('(TTL (ms): 30 to 40, 30 ms to 40 ms)');
    expect(shortLeaseNotes(s)[0]).toContain('("ttlMs": 30, 30 ms)');
  });

  it('says nothing of a lease that covers the work, of a client that refreshes its lease, or on a store whose locks never expire', () => {
    expect(shortLeaseNotes(jobQueue({ ttlMs: 30000, workMs: 200 }))).toEqual([]);
    expect(shortLeaseNotes(jobQueue({ ttlMs: 1000, workMs: 5000, refreshEveryMs: 500 }))).toEqual([]);
    expect(shortLeaseNotes(jobQueue({ ttlMs: 30, workMs: 200 }, { store: { kind: 'flock' } }))).toEqual([]);
  });

  it("counts a client's work before each of its writes, all under the one lock", () => {
    expect(shortLeaseNotes(jobQueue({ ttlMs: 1500, workMs: 600, writes: 3 }))).toEqual([
      'Note: The leases of W1, W2 ("ttlMs": 1500, 1.5 s) end before their work (1.8 s for their 3 writes) does, so they work on past their lock with no fault at all.',
    ]);
    expect(shortLeaseNotes(jobQueue({ ttlMs: 2000, workMs: 600, writes: 3 }))).toEqual([]);
  });

  it('compares a lease with the work of a client written as steps, and with a round trip to the store', () => {
    const steps = [{ step: 'acquire' }, { step: 'repeat', steps: [{ step: 'work', durationMs: 4000 }, { step: 'write' }], finally: [{ step: 'release' }] }];
    expect(shortLeaseNotes(jobQueue({ ttlMs: 3000, steps }))[0]).toBe(
      'Note: The leases of W1, W2 ("ttlMs": 3000, 3 s) end before their work (4 s) does, so they work on past their lock with no fault at all.',
    );
    const slow = jobQueue({ ttlMs: 50, workMs: 10 }, { network: { latencyMinMs: 20, latencyMaxMs: 40 } });
    expect(shortLeaseNotes(slow)[0]).toBe(
      `Note: The leases of W1, W2 ("ttlMs": 50, 50 ms) can run out before the store's reply arrives (a round trip takes up to 80 ms), so a grant can come back already expired. Durations are in milliseconds: did you mean 50 s, "ttlMs": 50000?`,
    );
  });

  it('is said once for a sweep, naming the TTLs that fall short and in how many combinations', () => {
    const at = (ttlMs: number) => jobQueue({ ttlMs, workMs: 3000 });
    expect(sweepLeaseNotes([1000, 2000, 3000, 4000].map(at))).toEqual([
      'Note: The leases of W1, W2 ("ttlMs": 1000 to 2000, 1 s to 2 s) end before their work (3 s) does, so they work on past their lock with no fault at all, in 2 of the 4 combinations swept.',
    ]);
    expect(sweepLeaseNotes([4000, 5000].map(at))).toEqual([]);
  });

  it('is noted for the built-in scenarios and lessons whose short lease is the story, and never as a TTL in the wrong unit', () => {
    const noted = new Map<string, string[]>();
    for (const [name, doc] of Object.entries(BUILTIN_SCENARIOS)) {
      const notes = shortLeaseNotes(normalizeScenario(doc, name));
      if (notes.length > 0) noted.set(name, notes);
    }
    for (const lesson of readdirSync('lessons', { withFileTypes: true }).filter((d) => d.isDirectory()))
      for (const file of readdirSync(join('lessons', lesson.name)).filter((f) => f.endsWith('.json'))) {
        const doc = JSON.parse(readFileSync(join('lessons', lesson.name, file), 'utf8')) as Record<string, unknown>;
        if (!('clients' in doc)) continue;
        const notes = shortLeaseNotes(normalizeScenario(doc, file));
        if (notes.length > 0) noted.set(`${lesson.name}/${file}`, notes);
      }
    // A's 3 s of work under a 2 s lease is how its late DEL comes to remove B's lock; a slow task under a 5 s lease is lesson 4's point.
    expect([...noted.keys()].sort()).toEqual([
      '03-leases/ttl-too-short.json',
      '04-pause-past-expiry/slow-task.json',
      '06-releasing-safely/plain-del.json',
      '12-deploys-and-configuration/plain-del.json',
      'release-by-plain-del',
    ]);
    for (const notes of noted.values()) for (const n of notes) expect(n).not.toContain('did you mean');
  });
});

describe('locklab run and sweep', () => {
  it('say beside the verdict, and before a sweep starts, that a lease ends before the work it covers, suggesting the TTL in seconds', async () => {
    // 30 s meant, 30 written: the workers' job takes at least 200 ms.
    const file = join(mkdtempSync(join(tmpdir(), 'locklab-lease-')), 'job-queue.json');
    writeFileSync(
      file,
      JSON.stringify({
        name: 'job-queue',
        machines: [{ name: 'w1' }, { name: 'db' }],
        store: { kind: 'redis', machine: 'db' },
        clients: [{ name: 'A', machine: 'w1', ttlMs: 30, workMs: 200 }],
      }),
    );
    const run = await cli('run', file);
    expect(run.code).toBe(0);
    expect(run.out).toContain('• Note: A\'s lease ("ttlMs": 30, 30 ms) ends before its work (200 ms) does');
    expect(run.out).toContain('did you mean 30 s, "ttlMs": 30000?');

    // --json keeps standard output the trace; the note goes to standard error.
    const json = await cli('run', file, '--json');
    expect(JSON.parse(json.out)).toHaveProperty('verdict');
    expect(json.err).toContain(`locklab: ${file}: Note: A's lease ("ttlMs": 30, 30 ms)`);

    const sweep = await cli('sweep', file, '--seeds', '1..20', '--workers', '1', '--csv');
    expect(sweep.out.split('\n')[1]).toMatch(/^20,/);
    expect(sweep.out).not.toContain('Note:');
    expect(sweep.err).toContain('did you mean 30 s, "ttlMs": 30000?');

    // A sweep over TTLs says it once, with the TTLs that fall short, and not of one long enough.
    const ttls = await cli('sweep', file, '--seeds', '1..5', '--workers', '1', '--vary', 'clients.A.ttlMs=30,150,30000', '--csv');
    expect(ttls.err.match(/Note: /g)).toHaveLength(1);
    expect(ttls.err).toContain(
      'Note: A\'s lease ("ttlMs": 30 to 150, 30 ms to 150 ms) ends before its work (200 ms) does, so it works on past its lock with no fault at all, in 2 of the 3 combinations swept. Durations are in milliseconds: did you mean 30 s to 150 s, "ttlMs": 30000 to 150000?',
    );
  });
});
