import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario } from '../../sim/index.js';
import { summaryParts } from '../../web/model/fixes.js';

describe('summaryParts', () => {
  it('summaryParts turns a --set fix into a runnable setting and keeps the words around it', () => {
    expect(summaryParts('Fix: synced clocks (--set machines.app2.clockOffsetMs=0).')).toEqual([
      'Fix: synced clocks ',
      { path: 'machines.app2.clockOffsetMs', value: '0' },
      '.',
    ]);
  });

  it('summaryParts reads a quoted --set whose value is JSON, without the quotes', () => {
    expect(summaryParts(`Fix: release in a finally (--set 'clients.A.steps[0].finally=[{"step":"release"}]').`)).toEqual([
      'Fix: release in a finally ',
      { path: 'clients.A.steps[0].finally', value: '[{"step":"release"}]' },
      '.',
    ]);
  });

  it('summaryParts names a setting whose value is left open in words, with nothing to run', () => {
    expect(summaryParts('An ensemble keeps serving (--set store.servers=...).')).toEqual(['An ensemble keeps serving (set store.servers in the Sandbox).']);
  });

  it('no built-in summary shows the command line’s syntax once its fixes are read', () => {
    for (const [name, raw] of Object.entries(BUILTIN_SCENARIOS)) {
      const text = summaryParts(normalizeScenario(raw, name).summary)
        .filter((p) => typeof p === 'string')
        .join('');
      expect(text, name).not.toMatch(/--set|--\w/);
    }
  });
});
