import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { cli } from '../support/cli.js';
import { refusal, scenarioIssues } from '../support/refusal.js';

/** A Redis scenario whose one client runs `steps`, plus any client fields given. */
function withSteps(steps: unknown, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name: 'steps',
    machines: [{ name: 'app' }, { name: 'db' }],
    store: { kind: 'redis', machine: 'db' },
    clients: [{ name: 'A', machine: 'app', ttlMs: 5000, steps, ...extra }],
  };
}

describe('the step vocabulary', () => {
  it('accepts every step name Symfony Lock has, and the script around them, filling in defaults', () => {
    const s = normalizeScenario(
      withSteps([
        { step: 'acquire' },
        {
          step: 'repeat',
          times: 3,
          steps: [
            {
              step: 'if',
              condition: { remainingLifetimeBelowMs: 2000 },
              then: [{ step: 'if', condition: { isExpired: true }, then: [{ step: 'throw' }] }, { step: 'refresh' }],
            },
            { step: 'work', durationMs: 1000 },
            { step: 'getRemainingLifetime' },
            { step: 'isAcquired' },
            { step: 'write' },
          ],
          finally: [{ step: 'release' }],
        },
        { step: 'acquireRead', blocking: true },
        { step: 'isExpired' },
        { step: 'refresh', ttlMs: 3000 },
        { step: 'sleep', durationMs: 10 },
        { step: 'fork', steps: [{ step: 'work', durationMs: 5 }] },
        { step: 'release' },
      ]),
      'ok.json',
    );
    const c = s.clients[0]!;
    expect(c.autoRelease).toBe(true);
    expect(c.steps![0]).toEqual({
      step: 'acquire',
      blocking: false,
      native: false,
      retries: 0,
      retryDelayMs: 100,
      waitTimeoutMs: null,
      method: 'atomic',
      onFailure: 'return',
    });
    expect(c.steps![1]).toMatchObject({ step: 'repeat', times: 3, catch: false, newLock: false, finally: [{ step: 'release', method: 'token-checked' }] });
    expect(c.steps![4]).toEqual({ step: 'refresh', ttlMs: 3000 });
    expect(c.steps![6]).toEqual({ step: 'fork', steps: [{ step: 'work', durationMs: 5, refreshEveryMs: null }] });
  });

  it('keeps steps null for a client written with the lifecycle fields', () => {
    const s = normalizeScenario({ ...withSteps(undefined), clients: [{ name: 'A', machine: 'app', workMs: 50 }] }, 'ok.json');
    expect(s.clients[0]!.steps).toBeNull();
  });

  it('a normalized scenario with steps normalizes to itself, so overrides can reach into steps', () => {
    const s = normalizeScenario(withSteps([{ step: 'acquire' }, { step: 'work', durationMs: 1000 }, { step: 'release' }]), 'ok.json');
    expect(normalizeScenario(structuredClone(s), 'again')).toEqual(s);
    const changed = applyOverrides(s, [parseOverride('clients.A.steps[1].durationMs=2500')]);
    expect(changed.clients[0]!.steps![1]).toEqual({ step: 'work', durationMs: 2500, refreshEveryMs: null });
  });

  it('refuses an unknown step, naming its path and the steps there are', () => {
    expect(refusal(withSteps([{ step: 'acquire' }, { step: 'lockAndWork' }]))).toMatch(
      /clients\[0\]\.steps\[1\]\.step: unknown step "lockAndWork"; expected one of: acquire, acquireRead, refresh, isAcquired, getRemainingLifetime, isExpired, work, sleep, write, release, throw, if, repeat, fork/,
    );
  });

  it('refuses a step without its name', () => {
    expect(refusal(withSteps([{ durationMs: 5 }]))).toMatch(/clients\[0\]\.steps\[0\]\.step: is required/);
  });

  it('refuses a work or sleep step without its duration', () => {
    expect(scenarioIssues(withSteps([{ step: 'work' }]))).toContainEqual({ path: 'clients[0].steps[0].durationMs', message: 'is required but missing' });
    expect(scenarioIssues(withSteps([{ step: 'repeat', steps: [{ step: 'sleep' }] }]))).toContainEqual({
      path: 'clients[0].steps[0].steps[0].durationMs',
      message: 'is required but missing',
    });
  });

  it('refuses a conditional without a branch, and one without a condition', () => {
    expect(scenarioIssues(withSteps([{ step: 'if', condition: { isExpired: true } }]))).toEqual([
      { path: 'clients[0].steps[0].then', message: 'an if step needs a branch: give `then` or `else` at least one step' },
    ]);
    expect(scenarioIssues(withSteps([{ step: 'if', condition: { isExpired: true }, then: [], else: [] }]))).toHaveLength(1);
    expect(scenarioIssues(withSteps([{ step: 'if', then: [{ step: 'release' }] }]))).toContainEqual({
      path: 'clients[0].steps[0].condition',
      message: 'is required but missing',
    });
  });

  it('refuses a condition that tests nothing, two things, or something Symfony has no method for', () => {
    expect(refusal(withSteps([{ step: 'if', condition: {}, then: [{ step: 'release' }] }]))).toMatch(/clients\[0\]\.steps\[0\]\.condition/);
    expect(refusal(withSteps([{ step: 'if', condition: { isExpired: true, isAcquired: false }, then: [{ step: 'release' }] }]))).toMatch(
      /clients\[0\]\.steps\[0\]\.condition/,
    );
    expect(refusal(withSteps([{ step: 'if', condition: { isLocked: true }, then: [{ step: 'release' }] }]))).toMatch(
      /clients\[0\]\.steps\[0\]\.condition\.isLocked: unknown field; expected one of: isExpired, isAcquired, remainingLifetimeBelowMs/,
    );
  });

  it('refuses an empty repeat body and a misspelt option, each at its path', () => {
    expect(refusal(withSteps([{ step: 'repeat', times: 2, steps: [] }]))).toMatch(/clients\[0\]\.steps\[0\]\.steps: needs at least 1 item/);
    expect(refusal(withSteps([{ step: 'acquire', block: true }]))).toMatch(/clients\[0\]\.steps\[0\]\.block: unknown field/);
    expect(refusal(withSteps([{ step: 'acquire', onFailure: 'retry' }]))).toMatch(
      /clients\[0\]\.steps\[0\]\.onFailure: expected one of "return", "next-iteration", "ignore"/,
    );
  });

  it('refuses lifecycle fields beside steps: they would be a second script', () => {
    expect(scenarioIssues(withSteps([{ step: 'acquire' }], { workMs: 500, release: { inFinally: false } }))).toEqual([
      { path: 'clients[0].workMs', message: 'a client with steps has no workMs: say it with steps instead (see docs/scenarios.md)' },
      { path: 'clients[0].release', message: 'a client with steps has no release: say it with steps instead (see docs/scenarios.md)' },
    ]);
  });

  it('the command line exits 2 on a malformed step, naming the file and the JSON path', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'locklab-steps-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, JSON.stringify(withSteps([{ step: 'acquire' }, { step: 'work' }])));
    const r = await cli('run', file);
    expect(r.code).toBe(2);
    expect(r.err).toContain('bad.json: clients[0].steps[1].durationMs: is required but missing');
    expect(r.err).not.toMatch(/\n\s+at /);
  });
});
