import { describe, expect, it } from 'vitest';
import { runEndOf, stopReason } from '../sim/cli/format.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { runScenario } from '../sim/run.js';

function stopped(clients: unknown[], budget: Record<string, number>): string | undefined {
  const raw = { ...(structuredClone(BUILTIN_SCENARIOS['pause-past-expiry']) as Record<string, unknown>), name: 'stop', faults: [], clients, budget };
  const s = normalizeScenario(raw, 'stop');
  return stopReason(runEndOf(runScenario(s, s.seed)));
}

describe('why a run stopped at a budget', () => {
  it('names the client that may wait for ever when one blocks with no time limit', () => {
    const why = stopped(
      [
        { name: 'A', machine: 'app1', ttlMs: 600000, workMs: 500000 },
        { name: 'B', machine: 'app2', acquire: { mode: 'blocking' } },
      ],
      { maxEvents: 200 },
    );
    expect(why).toMatch(/^Run stopped at its event budget \(200 events\) after 200 kernel events/);
    expect(why).toContain('client B may wait for ever (a blocking acquire with no waitTimeoutMs)');
  });

  it('finds a blocking acquire among the steps too', () => {
    const why = stopped(
      [
        { name: 'A', machine: 'app1', ttlMs: 600000, workMs: 500000 },
        { name: 'B', machine: 'app2', steps: [{ step: 'sleep', durationMs: 10 }, { step: 'acquire', blocking: true }, { step: 'release' }] },
      ],
      { maxEvents: 200 },
    );
    expect(why).toContain('client B may wait for ever');
  });

  it('says the run was long, not stuck, when nobody waits without a limit', () => {
    const why = stopped([{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 100, iterations: 1000 }], { maxEvents: 300 });
    expect(why).toContain('no client here waits for ever, so the run was long rather than stuck');
    expect(why).toContain('Raise budget.maxEvents or budget.maxTimeMs');
    expect(why).not.toContain('may wait for ever');
  });

  it('is undefined for a run that completed', () => {
    const s = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
    expect(stopReason(runEndOf(runScenario(s, s.seed)))).toBeUndefined();
  });
});
