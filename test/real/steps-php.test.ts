import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, expect, it } from 'vitest';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { clientPhp } from '../../sim/scenario/steps-php.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { randomSteps } from '../support/random-steps.js';
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
    fc.assert(
      fc.property(randomSteps(3), (script) => {
        const s: Scenario = { ...base, clients: [{ ...base.clients[0]!, steps: script }] };
        expect(lint(clientPhp(s, s.clients[0]!))).toBeNull();
      }),
      { numRuns: 150, seed: 7 },
    );
  });
});
