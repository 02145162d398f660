import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { marksByProcess, stepAt, StepMarker } from '../sim/clients/step-marks.js';
import { runCommand } from '../sim/cli/run-command.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { clientPhpLines } from '../sim/scenario/steps-php.js';
import type { Scenario } from '../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';

/*
 * `locklab run --code` numbers each client's PHP, and its timeline gives the
 * line each client event happened on: the line the lab's code panel marks
 * at that event.
 */

const plain = createColors(false);

async function printed(scenario: Scenario, window: { head?: number; tail?: number } = {}): Promise<string> {
  let out = '';
  await runCommand(scenario.name, scenario, { code: true, set: [], ...window }, { out: (t) => (out += t), err: () => undefined }, plain);
  return out;
}

/** The line column of each event row of a printed timeline, in order ('' for an event on no line). */
function lineColumn(out: string): string[] {
  const lines = out.split('\n');
  const header = lines.findIndex((l) => /^\s*true time {2}local clock {2}actor\s+line {2}event$/.test(l));
  expect(header).toBeGreaterThan(0);
  const at = lines[header]!.indexOf('line');
  const rows: string[] = [];
  for (const l of lines.slice(header + 1)) {
    if (l === '') break;
    // Marks of double ownership and the elided-lines note are indented past the time.
    if (/^\s*\S+ \S+\s+\S/.test(l.slice(0, at)) && !/^\s+[▲▼…]/.test(l)) rows.push(l.slice(at, at + 4).trim());
  }
  return rows;
}

/** What the lab's marks say: for each event, the line (from 1) its actor's code was on. */
function expectedLines(scenario: Scenario): string[] {
  const marker = new StepMarker();
  const doc = runScenario(scenario, scenario.seed, marker);
  const marks = marksByProcess(marker.marks);
  return doc.events.map((e) => {
    const m = marks.get(e.actor);
    const path = m === undefined ? undefined : stepAt(m, e.seq);
    if (typeof path !== 'string') return '';
    const client = scenario.clients.find((c) => c.name === e.actor.split('/')[0])!;
    const i = clientPhpLines(scenario, client).lineOf(path);
    return i === undefined ? '' : String(i + 1);
  });
}

describe('locklab run --code', () => {
  it('gives each client event the line its code was on, as the lab marks it, for every built-in scenario, whole and windowed', async () => {
    let withLine = 0;
    for (const [name, data] of Object.entries(BUILTIN_SCENARIOS)) {
      const scenario = normalizeScenario(data, name);
      const want = expectedLines(scenario);
      expect(lineColumn(await printed(scenario)), name).toEqual(want);
      expect(lineColumn(await printed(scenario, { head: 5, tail: 5 })), `${name}, --head 5 --tail 5`).toEqual(
        want.length <= 10 ? want : [...want.slice(0, 5), ...want.slice(-5)],
      );
      withLine += want.filter((l) => l !== '').length;
    }
    expect(withLine).toBeGreaterThan(1000);
  });

  it("numbers the code, and puts a paused holder's events on the line it paused in and a forked child's release on its exit", async () => {
    const ppe = await printed(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'));
    expect(ppe).toContain("\nA on app1\n   1  $lock = $factory->createLock('job', 10);\n");
    expect(ppe).toContain('\n   5          work(3);\n');
    expect(ppe).toMatch(/A@app1 +5 {2}PAUSES for 15 s/);
    expect(ppe).toMatch(/A@app1 +5 {2}resumes, unaware time has passed/);
    expect(ppe).toMatch(/A@app1 +6 {2}writes to the resource with fencing token 33/);
    const fork = await printed(normalizeScenario(BUILTIN_SCENARIOS['auto-release-fork'], 'auto-release-fork'));
    expect(fork).toContain('\n   6          exit(0);\n');
    expect(fork).toMatch(/A\/child1@app1 +6 {2}releases job on redis/);
  });
});
