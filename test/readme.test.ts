import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { COMMANDS, NEEDS_SERVERS, readmeTable, runReadmeCommand } from './support/readme.js';

/*
 * The README's commands that need no server, run as a reader would type
 * them, in the order it gives them (a trace written by one is read by a
 * later one), in a directory holding the files they name; and the figures
 * it quotes from its sweeps must be what those sweeps print.
 */

const simulated = COMMANDS.filter((c) => !NEEDS_SERVERS.test(c));
let dir: string;
const printed = new Map<string, string>();

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-readme-'));
  // The reader's own scenarios: one of two clients, A and B, and a longer one.
  writeFileSync(join(dir, 'my-scenario.json'), JSON.stringify(BUILTIN_SCENARIOS['pause-past-expiry'], null, 2));
  writeFileSync(join(dir, 'long.json'), JSON.stringify(BUILTIN_SCENARIOS['random-gc-pauses'], null, 2));
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe("the README's commands", () => {
  it('are found: the simulated ones here, those that need servers in test/real', () => {
    expect(simulated.length).toBeGreaterThan(20);
    expect(COMMANDS.length - simulated.length).toBeGreaterThan(5);
  });

  for (const command of simulated) it(command, async () => void printed.set(command, await runReadmeCommand(command, dir)), 300_000);

  it("quotes the engineer's question's figures as its two sweeps print them", () => {
    const ttls = printed.get("npx locklab sweep random-gc-pauses --seeds 1..5000 --vary 'clients[*].ttlMs=10000,30000,60000'");
    const fencing = printed.get('npx locklab sweep random-gc-pauses --seeds 1..5000 --vary resource.fencing=false,true');
    expect(ttls).toBeDefined();
    expect(fencing).toBeDefined();
    /** One measure of one combination, as the sweep prints it: "9.4 % (8.7–10.3)". */
    const figure = (out: string, combination: string, measure: string): string => {
      const block = out.split(/\n(?=\S)/).find((b) => b.startsWith(`${combination} · 5,000 runs`));
      expect(block, `${combination} in the sweep's output`).toBeDefined();
      const m = new RegExp(`^\\s+${measure.replace(/[()]/g, '\\$&')}\\s+(\\S+ % \\(\\S+\\))`, 'm').exec(block!);
      expect(m, `${measure} of ${combination}`).not.toBeNull();
      return m![1]!;
    };
    /** The share of jobs of one combination, as the table quotes the sweep's line: "1.3 % (1.2–1.4), about 1 in 78". */
    const jobs = (out: string, combination: string): string => {
      const block = out.split(/\n(?=\S)/).find((b) => b.startsWith(`${combination} · 5,000 runs`))!;
      const m = /^\s+double-owned cycles\s+(\S+ %) of 300,000 lock cycles (\(\S+\)), (about 1 in [\d,]+)$/m.exec(block);
      expect(m, `double-owned cycles of ${combination}`).not.toBeNull();
      return `${m![1]} ${m![2]}, ${m![3]}`;
    };
    const unsafe = 'unsafe (stale write accepted)';
    const double = 'double ownership';
    const fenced = figure(fencing!, 'resource.fencing=true', 'fenced (stale writes refused)').replace(/ \(.*$/, '');
    // Both columns: fencing leaves double ownership as it was and turns most stale writes away, so neither stands for the other.
    expect(readmeTable('5,000 runs of 60 jobs each')).toEqual([
      ['TTL 10 s', jobs(ttls!, 'clients[*].ttlMs=10000'), figure(ttls!, 'clients[*].ttlMs=10000', double), figure(ttls!, 'clients[*].ttlMs=10000', unsafe)],
      ['TTL 30 s', jobs(ttls!, 'clients[*].ttlMs=30000'), figure(ttls!, 'clients[*].ttlMs=30000', double), figure(ttls!, 'clients[*].ttlMs=30000', unsafe)],
      ['TTL 60 s', jobs(ttls!, 'clients[*].ttlMs=60000'), figure(ttls!, 'clients[*].ttlMs=60000', double), figure(ttls!, 'clients[*].ttlMs=60000', unsafe)],
      [
        'TTL 30 s, fencing on',
        jobs(fencing!, 'resource.fencing=true'),
        figure(fencing!, 'resource.fencing=true', double),
        `${figure(fencing!, 'resource.fencing=true', unsafe)}; ${fenced} fenced`,
      ],
    ]);
  });
});
