import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import type { AcquireOnFailure, Step } from '../../sim/scenario/steps.js';
import { clientPhp } from '../../sim/scenario/steps-php.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { describeReal } from './support.js';

/* The PHP the Sandbox shows for a client is PHP: Debian's php -l compiles it (a `continue` outside a loop, say, does not compile). */

describeReal('a client as PHP compiles with php -l', () => {
  const dir = mkdtempSync(join(tmpdir(), 'locklab-php-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  let n = 0;
  /** php -l's complaint about the script, or null when it compiles. */
  function lint(code: string): string | null {
    const file = join(dir, `client-${n++}.php`);
    writeFileSync(file, `<?php\n${code}\n`);
    const r = spawnSync('php', ['-l', file], { encoding: 'utf8' });
    return r.status === 0 ? null : `${r.stdout}${r.stderr}\n${code}`;
  }

  it('every client of every built-in scenario', () => {
    const bad: string[] = [];
    for (const [name, raw] of Object.entries(BUILTIN_SCENARIOS)) {
      const s = normalizeScenario(raw, name);
      for (const c of s.clients) {
        const complaint = lint(clientPhp(s, c));
        if (complaint !== null) bad.push(`${name} ${c.name}: ${complaint}`);
      }
    }
    expect(bad).toEqual([]);
    expect(n).toBeGreaterThan(60);
  });

  it('clients of random scripts: nested repeats, ifs, forks and acquires that go on with the next pass', () => {
    const base = normalizeScenario(BUILTIN_SCENARIOS['finally-after-exception'], 'finally-after-exception');
    const leaf = fc.constantFrom<Step>(
      { step: 'work', durationMs: 1500, refreshEveryMs: null },
      { step: 'sleep', durationMs: 250 },
      { step: 'write' },
      { step: 'release', method: 'token-checked' },
      { step: 'release', method: 'plain-del' },
      { step: 'refresh', ttlMs: null },
      { step: 'isExpired' },
      { step: 'throw', message: "it's broken \\ here" },
    );
    const acquire = (inLoop: boolean) =>
      fc
        .record({
          blocking: fc.boolean(),
          retries: fc.nat(3),
          onFailure: fc.constantFrom<AcquireOnFailure>(...(inLoop ? (['return', 'next-iteration', 'ignore'] as const) : (['return', 'ignore'] as const))),
          method: fc.constantFrom<'atomic' | 'exists-then-set'>('atomic', 'exists-then-set'),
        })
        .map((a): Step => ({ step: 'acquire', native: false, retryDelayMs: 100, waitTimeoutMs: null, ...a }));
    const steps = (depth: number, inLoop: boolean): fc.Arbitrary<Step[]> => {
      const one: fc.Arbitrary<Step>[] = [leaf, acquire(inLoop)];
      if (depth > 0)
        one.push(
          fc
            .record({
              times: fc.integer({ min: 1, max: 3 }),
              body: steps(depth - 1, true),
              fin: steps(depth - 1, true),
              catch: fc.boolean(),
              newLock: fc.boolean(),
            })
            .map((r): Step => ({ step: 'repeat', times: r.times, steps: r.body, finally: r.fin, catch: r.catch, newLock: r.newLock })),
          fc
            .record({ then: steps(depth - 1, inLoop), else: steps(depth - 1, inLoop) })
            .map((r): Step => ({ step: 'if', condition: { isAcquired: true }, then: r.then, else: r.else })),
          steps(depth - 1, false).map((body): Step => ({ step: 'fork', steps: body })),
        );
      return fc.array(fc.oneof(...one), { maxLength: 4 });
    };
    fc.assert(
      fc.property(steps(3, false), (script) => {
        const s: Scenario = { ...base, clients: [{ ...base.clients[0]!, steps: script }] };
        expect(lint(clientPhp(s, s.clients[0]!))).toBeNull();
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});
