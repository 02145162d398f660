import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arrivals, marksByProcess, StepMarker, stepAt } from '../sim/clients/step-marks.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { clientPhpLines } from '../sim/scenario/steps-php.js';
import type { Scenario } from '../sim/scenario/types.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { serializeTrace } from '../sim/trace/io.js';
import type { TraceDocument } from '../sim/trace/types.js';
import { randomSteps } from './support/random-steps.js';
import { linesAtEvents, mismatches } from './support/step-lines.js';

/* Which line of its PHP each client process is on, event by event: the lab's code panel follows the playhead with it. */

const builtin = (name: string): Scenario => normalizeScenario(BUILTIN_SCENARIOS[name], name);

/** A built-in scenario run with its step marks. */
function marked(name: string): { s: Scenario; doc: TraceDocument; marker: StepMarker } {
  const s = builtin(name);
  const marker = new StepMarker();
  return { s, doc: runScenario(s, s.seed, marker), marker };
}

describe('the line each client is on, event by event', () => {
  it('asking for the marks changes nothing in the trace, for every built-in scenario', () => {
    for (const [name, raw] of Object.entries(BUILTIN_SCENARIOS)) {
      const s = normalizeScenario(raw, name);
      const marker = new StepMarker();
      expect(serializeTrace(runScenario(s, s.seed, marker)), name).toBe(serializeTrace(runScenario(s, s.seed)));
      expect(marker.marks.seq.length, name).toBeGreaterThan(0);
    }
  });

  it('every event of every built-in scenario happens on the line that makes it', () => {
    let checked = 0;
    for (const [name, raw] of Object.entries(BUILTIN_SCENARIOS)) {
      const s = normalizeScenario(raw, name);
      const marker = new StepMarker();
      const doc = runScenario(s, s.seed, marker);
      expect(mismatches(s, doc, marker.marks), name).toEqual([]);
      checked += linesAtEvents(s, doc, marker.marks).filter((e) => e.line !== null).length;
    }
    expect(checked).toBeGreaterThan(1000);
  });

  it('a GC pause in work: A stays on work(3) while B takes the lock, works and releases, then A writes', () => {
    const { s, doc, marker } = marked('pause-past-expiry');
    const seen = linesAtEvents(s, doc, marker.marks).map((e) => `${e.process} ${e.kind} @ ${e.line}`);
    expect(seen).toEqual([
      'A client.start @ null',
      'A acquire.request @ if (!$lock->acquire()) return;',
      'A acquire.ok @ if (!$lock->acquire()) return;',
      'A work.start @ work(3);',
      'A process.pause @ work(3);',
      'B client.start @ null',
      ...Array.from({ length: 3 }, () => [
        'B acquire.request @ if (!$lock->acquire()) return; // tried 11 times, 2 s apart',
        'B acquire.denied @ if (!$lock->acquire()) return; // tried 11 times, 2 s apart',
      ]).flat(),
      'B acquire.request @ if (!$lock->acquire()) return; // tried 11 times, 2 s apart',
      'B acquire.ok @ if (!$lock->acquire()) return; // tried 11 times, 2 s apart',
      'B work.start @ work(1);',
      'B write.request @ write();',
      'B write.done @ write();',
      'B release.request @ $lock->release();',
      'B release.ok @ $lock->release();',
      'B client.done @ null',
      'A process.resume @ work(3);',
      'A write.request @ write();',
      'A write.done @ write();',
      'A release.request @ $lock->release();',
      'A release.lost @ $lock->release();',
      'A client.done @ null',
    ]);
  });

  it("a forked child's exit is where its copy of the Lock is destroyed, and the parent's lock released", () => {
    const { s, doc, marker } = marked('auto-release-fork');
    const child = linesAtEvents(s, doc, marker.marks).filter((e) => e.process === 'A/child1');
    expect(child.map((e) => `${e.kind} @ ${e.line}`)).toEqual([
      'client.start @ null',
      'work.start @ work(0.2);',
      'autorelease.check @ exit(0);',
      'isAcquired.request @ exit(0);',
      'isAcquired.yes @ exit(0);',
      'release.request @ exit(0);',
      'release.ok @ exit(0);',
      'client.done @ exit(0);',
    ]);
  });

  it("a worker's passes share one loop's lines: its think time, then the same acquire, work and release each pass", () => {
    const { s, doc, marker } = marked('random-gc-pauses');
    const a = linesAtEvents(s, doc, marker.marks).filter((e) => e.process === 'A');
    expect(a.filter((e) => e.kind === 'sleep.start').length).toBeGreaterThan(5);
    expect(new Set(a.filter((e) => e.kind === 'sleep.start').map((e) => e.line))).toEqual(new Set(['if ($i > 0) usleep(500000);']));
    expect(new Set(a.filter((e) => e.kind === 'acquire.request').map((e) => e.line))).toEqual(new Set(['if (!$lock->acquire(true)) continue;']));
    expect(new Set(a.filter((e) => e.kind === 'work.start').map((e) => e.line))).toEqual(
      new Set(['work(…); // exponential, mean 2 s, drawn afresh each time']),
    );
  });

  it('where a process comes to be, event by event: each line A reaches, at the event it reaches it, and where its script ends', () => {
    const { s, doc, marker } = marked('pause-past-expiry');
    const php = clientPhpLines(s, s.clients[0]!);
    const a = arrivals(marksByProcess(marker.marks).get('A')!, doc.events.length);
    expect(a.map((x) => `${x.seq} ${doc.events[x.seq]!.kind} @ ${x.path === null ? null : php.lines[php.lineOf(x.path)!]!.text.trim()}`)).toEqual([
      '1 acquire.request @ if (!$lock->acquire()) return;',
      '4 work.start @ work(3);',
      '26 write.request @ write();',
      '29 release.request @ $lock->release();',
      '31 client.done @ null',
    ]);
  });

  it("lesson 4's story, as its text tells it: A stays on work(3), paused, while its lease expires and B takes the lock, then goes on to write()", () => {
    const file = new URL('../lessons/04-pause-past-expiry/gc-pause.json', import.meta.url);
    const s = normalizeScenario(JSON.parse(readFileSync(file, 'utf8')), 'gc-pause.json');
    const marker = new StepMarker();
    const doc = runScenario(s, 7, marker);
    const a = marksByProcess(marker.marks).get('A')!;
    const php = clientPhpLines(
      s,
      s.clients.find((c) => c.name === 'A')!,
    );
    const lineAt = (seq: number) => php.lines[php.lineOf(stepAt(a, seq)!)!]!.text.trim();
    const seqOf = (kind: string, actor: string) => doc.events.find((e) => e.kind === kind && e.actor === actor)!.seq;
    expect(lineAt(seqOf('process.pause', 'A'))).toBe('work(3);');
    expect(lineAt(seqOf('lock.expired', 'redis'))).toBe('work(3);');
    expect(lineAt(seqOf('acquire.ok', 'B'))).toBe('work(3);');
    expect(lineAt(seqOf('process.resume', 'A'))).toBe('work(3);');
    expect(lineAt(seqOf('process.resume', 'A') + 1)).toBe('write();');
  });

  it('a crashed process is on no line after its crash', () => {
    const { doc, marker } = marked('crash-without-release');
    const crash = doc.events.find((e) => e.kind === 'process.crash')!;
    const m = marksByProcess(marker.marks).get(crash.actor)!;
    expect(stepAt(m, crash.seq)).not.toBeNull();
    expect(stepAt(m, crash.seq + 1)).toBeNull();
    expect(stepAt(m, doc.events.length - 1)).toBeNull();
  });

  it('random scripts: nested repeats, ifs, forks, and acquires that go on with the next pass', () => {
    const base = builtin('finally-after-exception');
    fc.assert(
      fc.property(randomSteps(3), (script) => {
        const s: Scenario = { ...base, clients: [{ ...base.clients[0]!, steps: script }, ...base.clients.slice(1)] };
        const marker = new StepMarker();
        const doc = runScenario(s, s.seed, marker);
        expect(mismatches(s, doc, marker.marks)).toEqual([]);
      }),
      { numRuns: 200, seed: 11 },
    );
  });
});
