import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { replay, scenario, type Run } from 'locklab/testing';
import { traceHash } from '../sim/trace/io.js';

const root = new URL('..', import.meta.url).pathname;
const tmp = mkdtempSync(join(tmpdir(), 'locklab-matchers-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The message an assertion fails with. */
function failure(assertion: () => void): string {
  try {
    assertion();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the assertion passed');
}

const pausedWorker = scenario('paused worker')
  .redis({ fencingTokenStart: 33 })
  .client('A', { ttlMs: 10_000, workMs: 3000 })
  .client('B', { startMs: 5000, ttlMs: 10_000, workMs: 1000, acquire: { retries: 10, retryDelayMs: 2000 } })
  .pause('A', { at: 1000, for: 15_000 });
const unsafe = pausedWorker.run({ seed: 7 });
const fenced = pausedWorker.fencing().run({ seed: 7 });
const safe = replay('crash-without-release');

describe('the Vitest matchers of locklab/testing', () => {
  it('toBeSafe, toBeFenced and toBeUnsafe read the outcome, and say what the checker found when they fail', () => {
    expect(safe).toBeSafe();
    expect(fenced).toBeFenced();
    expect(unsafe).toBeUnsafe();
    expect(unsafe).not.toBeSafe();
    const message = failure(() => expect(unsafe).toBeSafe());
    expect(message).toMatch(/^expected the run \(seed 7\) to be safe/);
    expect(message).toContain('Its outcome is unsafe:');
    expect(message).toContain("A's write with fencing token 33");
    expect(failure(() => expect(fenced).not.toBeFenced())).toMatch(/^expected the run \(seed 7\) not to be fenced/);
  });

  it('toHaveDoubleOwnership names the pair in either order, or any pair', () => {
    expect(unsafe).toHaveDoubleOwnership('A', 'B');
    expect(unsafe).toHaveDoubleOwnership('B', 'A');
    expect(unsafe).toHaveDoubleOwnership('A');
    expect(unsafe).toHaveDoubleOwnership();
    expect(safe).not.toHaveDoubleOwnership();
    expect(failure(() => expect(safe).toHaveDoubleOwnership('A', 'B'))).toContain('No two clients ever believed they held the same key at once.');
    expect(failure(() => expect(unsafe).not.toHaveDoubleOwnership())).toMatch(/Double ownership:\n {2}A and B on job from 11\.\d{3} s to 12\.\d{3} s/);
  });

  it('toHaveRejectedWrite finds the resource refusing a token, and lists every write when it does not', () => {
    expect(fenced).toHaveRejectedWrite(33);
    expect(fenced).toHaveRejectedWrite();
    expect(fenced).not.toHaveRejectedWrite(34);
    expect(unsafe).not.toHaveRejectedWrite();
    const message = failure(() => expect(unsafe).toHaveRejectedWrite(33));
    expect(message).toContain("B's write with token 34 at 12.012 s: accepted");
    const late = unsafe.trace.events.find((e) => e.kind === 'write.accepted' && e.fence === 33)!;
    expect(message).toContain(`A's write with token 33 at 16.001 s: accepted (event ${late.seq})`);
  });

  it('toHaveAcceptedStaleWrite finds the damage fencing exists to stop', () => {
    expect(unsafe).toHaveAcceptedStaleWrite(33);
    expect(unsafe).not.toHaveAcceptedStaleWrite(34);
    expect(fenced).not.toHaveAcceptedStaleWrite();
  });

  it('toHaveLostLock finds a lock the store dropped under a believing client, by client and how', () => {
    expect(unsafe).toHaveLostLock('A', 'expired');
    expect(unsafe).toHaveLostLock();
    expect(unsafe).not.toHaveLostLock('B');
    expect(unsafe).not.toHaveLostLock('A', 'deleted');
    const [lost] = unsafe.verdict.lostLocks;
    expect(failure(() => expect(unsafe).toHaveLostLock('A', 'deleted'))).toMatch(
      new RegExp(`Lost locks:\n {2}A at 10\\.\\d{3} s: expired, TTL ran out.* \\(events ${lost!.seqs.join(', ')}\\)`),
    );
    expect(unsafe.findings.map((f) => f.invariant)).toEqual(['lost-lock', 'double-ownership', 'stale-write']);
  });

  it('a run that stopped at its budget is neither safe nor fenced, and does not complete; an accepted stale write before the cut is still unsafe', () => {
    const cut = pausedWorker.budget({ maxTimeMs: 2000 }).run({ seed: 7 });
    expect(cut.verdict.outcome).toBe('safe');
    expect(cut).not.toBeSafe();
    expect(cut).not.toComplete();
    expect(unsafe).toComplete();
    expect(failure(() => expect(cut).toBeSafe())).toContain('It stopped at its time-budget before the scenario ended');
    const cutFenced = pausedWorker.fencing().budget({ maxTimeMs: 16_002 }).run({ seed: 7 });
    expect([cutFenced.trace.stop.reason, cutFenced.verdict.outcome]).toEqual(['time-budget', 'fenced']);
    expect(cutFenced).not.toBeFenced();
    const cutUnsafe = pausedWorker.budget({ maxTimeMs: 16_002 }).run({ seed: 7 });
    expect([cutUnsafe.trace.stop.reason, cutUnsafe.verdict.outcome]).toEqual(['time-budget', 'unsafe']);
    expect(cutUnsafe).toBeUnsafe();
  });

  it('a built-in replay prints the exact locklab run command, overrides included', () => {
    const run = replay('pause-past-expiry', { seed: 9, set: { 'resource.fencing': true, 'clients.B.ttlMs': 500 } });
    expect(failure(() => expect(run).toBeSafe())).toMatch(
      /\nReproduce:\nnpx locklab run pause-past-expiry --seed 9 --set resource\.fencing=true --set clients\.B\.ttlMs=500$/,
    );
  });

  it('a scenario built in code prints a here-document that writes it out, and the command; run in a shell it gives the same trace', () => {
    const message = failure(() => expect(unsafe).toBeSafe());
    const script = message.slice(message.indexOf('\nReproduce:\n') + '\nReproduce:\n'.length);
    expect(script.split('\n')[0]).toMatch(/^The scenario was built in code; write it to a file/);
    expect(script).toContain("cat > paused-worker.json <<'EOF'\n");
    expect(script.split('\n').at(-1)).toBe('npx locklab run paused-worker.json --seed 7');
    // Run it as a user would, with the command from the sources in place of `npx locklab`.
    const tsx = join(root, 'node_modules/.bin/tsx');
    const shell = script
      .split('\n')
      .slice(1)
      .join('\n')
      .replace('npx locklab run', `${tsx} ${join(root, 'sim/cli/start.ts')} run`);
    const ran = spawnSync('bash', ['-c', `${shell} --json`], { cwd: tmp, encoding: 'utf8' });
    expect(ran.stderr).toBe('');
    expect(ran.status).toBe(0);
    expect(traceHash(JSON.parse(ran.stdout))).toBe(unsafe.hash);
  });

  it('accepts a trace document too, and explains anything else', () => {
    expect(unsafe.trace).toBeUnsafe();
    expect(failure(() => expect(unsafe.trace).toBeSafe())).toContain(`cat > paused-worker.json <<'EOF'`);
    expect(failure(() => expect({ verdict: 'safe' }).toBeSafe())).toBe(
      'expected a Locklab run (from scenario(...).run() or replay()) or a trace document, got object',
    );
  });

  it('fails under .not too when handed no run, or a client, a way of losing a lock or a token that cannot match', () => {
    const notRun = 'expected a Locklab run (from scenario(...).run() or replay()) or a trace document, got object';
    const builder = 'expected a Locklab run (from scenario(...).run() or replay()) or a trace document, got a scenario builder: call .run({ seed }) on it';
    expect(failure(() => expect(pausedWorker).not.toBeUnsafe())).toBe(builder);
    expect(failure(() => expect(pausedWorker.fencing()).not.toHaveAcceptedStaleWrite())).toBe(builder);
    expect(failure(() => expect({ verdict: 'safe' }).not.toBeSafe())).toBe(notRun);
    expect(failure(() => expect(unsafe).not.toHaveDoubleOwnership('A', 'b'))).toBe('toHaveDoubleOwnership: the run has no client named "b" (clients: A, B)');
    expect(failure(() => expect(unsafe).toHaveDoubleOwnership('C'))).toBe('toHaveDoubleOwnership: the run has no client named "C" (clients: A, B)');
    expect(failure(() => expect(unsafe).not.toHaveLostLock('a'))).toBe('toHaveLostLock: the run has no client named "a" (clients: A, B)');
    expect(failure(() => expect(unsafe).not.toHaveLostLock('A', 'expird' as never))).toBe(
      'toHaveLostLock: expected how the lock was lost, one of "expired", "deleted", "overwritten", "lost", got "expird"',
    );
    expect(failure(() => expect(unsafe).not.toHaveAcceptedStaleWrite('33' as never))).toBe(
      'toHaveAcceptedStaleWrite: expected a fencing token (a whole number), got "33"',
    );
    expect(failure(() => expect(fenced).not.toHaveRejectedWrite('33' as never))).toBe(
      'toHaveRejectedWrite: expected a fencing token (a whole number), got "33"',
    );
    expect(unsafe).not.toHaveLostLock('B', 'expired');
    expect(unsafe).not.toHaveAcceptedStaleWrite(34);
  });
});

describe('replay()', () => {
  it('runs a scenario file by path and reproduces it by that path', () => {
    const file = join(tmp, 'from-file.json');
    writeFileSync(file, JSON.stringify(pausedWorker));
    const run: Run = replay(file, { seed: 7 });
    expect(run.hash).toBe(unsafe.hash);
    expect(run.reproduce).toBe(`npx locklab run ${file} --seed 7`);
  });

  it('refuses an unknown name with the list of built-ins, and a bad file with its path and field', () => {
    expect(() => replay('no-such-scenario')).toThrow(/^no-such-scenario: no such file, and no built-in scenario of that name \(built-ins: pause-past-expiry, /);
    const file = join(tmp, 'bad.json');
    writeFileSync(file, JSON.stringify({ ...pausedWorker.toJSON(), seed: -1 }));
    expect(() => replay(file)).toThrow(new RegExp(`^${file}: seed: `));
  });
});

describe('docs/testing.md', () => {
  const doc = readFileSync(join(root, 'docs/testing.md'), 'utf8');

  it('quotes its example test whole, the file the suite runs', () => {
    expect(doc).toContain(`\`\`\`ts\n${readFileSync(join(root, 'docs/examples/job-lock.test.ts'), 'utf8')}\`\`\``);
  });

  it('shows the failure message the matcher prints', () => {
    const shown = /```text\n(expected the run[^`]*)```/.exec(doc)![1]!.trimEnd();
    expect(failure(() => expect(replay('pause-past-expiry')).toBeSafe())).toBe(shown);
  });
});
