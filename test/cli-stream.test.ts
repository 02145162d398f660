import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventWindow } from '../sim/cli/event-window.js';
import { formatTimeline } from '../sim/cli/format.js';
import { runJob, startJob } from '../sim/run.js';
import { HELD_TEXT_CHARS, RUN_CAPS, runCommand } from '../sim/cli/run-command.js';
import { InputError } from '../sim/errors.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import type { TraceDocument, TraceEvent } from '../sim/trace/types.js';
import { cli } from './support/cli.js';
import { SPANS_KEPT } from '../sim/check/checker.js';
import type { Verdict } from '../sim/check/verdict.js';
import { workloadScenario } from '../bench/workload.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-stream-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A scenario that never finishes: B blocks on a lock A holds for far longer than the budget. */
function forever(maxEvents: number): Record<string, unknown> {
  const s = structuredClone(BUILTIN_SCENARIOS['pause-past-expiry']) as Record<string, unknown>;
  s.name = 'forever';
  s.budget = { maxEvents };
  s.faults = [];
  s.clients = [
    { name: 'A', machine: 'app1', ttlMs: 600000, workMs: 500000 },
    { name: 'B', machine: 'app2', acquire: { mode: 'blocking' } },
  ];
  return s;
}

function scenarioFile(name: string, doc: Record<string, unknown>): string {
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(doc));
  return file;
}

/** The JSON Lines of a streamed trace, each parsed. */
function lines(text: string): unknown[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l) as unknown);
}

/** What a streamed trace must hold: the document's head, its events one per line, then its stop and verdict. */
function expectSameTrace(jsonl: string, doc: TraceDocument): void {
  const all = lines(jsonl);
  expect(all[0]).toEqual({ schema: doc.schema, source: doc.source, scenario: doc.scenario, seed: doc.seed });
  expect(all.at(-1)).toEqual({ stop: doc.stop, verdict: doc.verdict });
  const events = jsonl.split('\n').slice(1, -2);
  expect(events).toEqual(doc.events.map((e) => JSON.stringify(e)));
}

describe('streamed traces', () => {
  it('--json --stream prints the kept trace as JSON Lines: the head, each event as the document writes it, then stop and verdict', async () => {
    for (const name of ['pause-past-expiry', 'crash-without-release', 'redlock-clock-jump']) {
      const kept = await cli('run', name, '--json');
      const streamed = await cli('run', name, '--json', '--stream');
      expect(streamed.code).toBe(kept.code);
      expectSameTrace(streamed.out, JSON.parse(kept.out) as TraceDocument);
    }
  });

  it('--out trace.jsonl writes the same lines as --json --stream, with the timeline on stdout and no temporary file left', async () => {
    const sub = mkdtempSync(join(dir, 'out-'));
    const file = join(sub, 'trace.jsonl');
    const r = await cli('run', 'pause-past-expiry', '--out', file, '--tail', '3');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Verdict: UNSAFE');
    expect(r.out).toContain(`Trace written to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe((await cli('run', 'pause-past-expiry', '--json', '--stream')).out);
    expect(readdirSync(sub)).toEqual(['trace.jsonl']);
  });

  it('a streamed run that stops at its budget still ends with its stop line, and says why on stderr', async () => {
    const file = scenarioFile('forever.json', forever(5000));
    const r = await cli('run', file, '--json', '--stream');
    expect(r.code).toBe(3);
    const last = lines(r.out).at(-1) as { stop: { reason: string; events: number } };
    expect(last.stop).toMatchObject({ reason: 'event-budget', events: 5000 });
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`locklab: ${file}: Run stopped at its event budget (5000 events) after 5,000 kernel events`);
  });

  it('a budget stop under plain --json also prints its one-line reason on stderr', async () => {
    const file = scenarioFile('forever-json.json', forever(3000));
    const r = await cli('run', file, '--json');
    expect(r.code).toBe(3);
    expect((JSON.parse(r.out) as TraceDocument).stop.reason).toBe('event-budget');
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain('Raise budget.maxEvents or budget.maxTimeMs');
  });

  it('--stream without --json, and --head or --tail with --json, are refused with exit 2', async () => {
    const a = await cli('run', 'pause-past-expiry', '--stream');
    expect(a.code).toBe(2);
    expect(a.err).toBe('locklab: --stream: goes with --json: it prints the trace as JSON Lines\n');
    const b = await cli('run', 'pause-past-expiry', '--json', '--head', '3');
    expect(b.code).toBe(2);
    expect(b.err).toBe('locklab: --head: shapes the timeline, which --json does not print\n');
    const c = await cli('run', 'pause-past-expiry', '--tail', 'lots');
    expect(c.code).toBe(2);
    expect(c.err).toContain('expected a number of lines (0 or more), got "lots"');
  });
});

describe('the budget of a run that keeps its whole trace', () => {
  const scenario = normalizeScenario(forever(5000), 'forever.json');
  const capture = () => {
    const io = { outText: '', errText: '', out: (t: string) => (io.outText += t), err: (t: string) => (io.errText += t) };
    return io;
  };

  it('stops at the cap with a message naming the budget and how to stream instead', async () => {
    const io = capture();
    const r = await runCommand('forever.json', scenario, { set: [] }, io, pc.createColors(false), { ...RUN_CAPS, keptEvents: 400 });
    expect(r.end.stop).toMatchObject({ reason: 'event-budget', events: 400 });
    expect(io.outText).toContain(
      'Run stopped at the event budget of a run that keeps its whole trace (400 events: maxTraceEvents; the scenario allows 5,000) after 400 kernel events',
    );
    expect(io.outText).toContain('To run it whole, stream the trace instead: --out trace.jsonl or --json --stream, and --head N/--tail N for the timeline.');
  });

  it('under --json the cap is said on stderr in one line, beside the trace on stdout', async () => {
    const io = capture();
    await runCommand('forever.json', scenario, { set: [], json: true }, io, pc.createColors(false), { ...RUN_CAPS, keptEvents: 400 });
    expect((JSON.parse(io.outText) as TraceDocument).events.length).toBeGreaterThan(0);
    expect(io.errText.trim().split('\n')).toHaveLength(1);
    expect(io.errText).toContain('locklab: forever.json: Run stopped at the event budget of a run that keeps its whole trace (400 events');
  });

  it('a trace document larger than check reads back is refused before a byte of it is written, to stdout or to a file', async () => {
    const whole = capture();
    await runCommand('forever.json', scenario, { set: [], json: true }, whole, pc.createColors(false), { ...RUN_CAPS, keptEvents: 400 });
    const bytes = Buffer.byteLength(whole.outText, 'utf8');
    // Held while it is measured, or measured, let go and made again (held nothing, or about half): the same bytes, at its exact size too.
    for (const heldTextChars of [HELD_TEXT_CHARS, 0, Math.round(bytes / 2)]) {
      const caps = { ...RUN_CAPS, keptEvents: 400, heldTextChars };
      const exact = capture();
      await runCommand('forever.json', scenario, { set: [], json: true }, exact, pc.createColors(false), { ...caps, traceBytes: bytes });
      expect(exact.outText, `holding ${heldTextChars} characters`).toBe(whole.outText);
      const io = capture();
      const file = join(dir, 'too-large.json');
      const run = () =>
        runCommand('forever.json', scenario, { set: [], json: true, out: file }, io, pc.createColors(false), { ...caps, traceBytes: bytes - 1 });
      await expect(run()).rejects.toThrow(InputError);
      await expect(run()).rejects.toThrow(
        /^forever\.json: budget\.maxEvents: the run recorded [\d,]+ trace events, too many for one trace file \(the limit is [\d,]+ bytes \(maxTraceBytes\)\); lower budget\.maxEvents, or stream the trace with --out trace\.jsonl$/,
      );
      expect(io.outText).toBe('');
      expect(readdirSync(dir).filter((f) => f.includes('too-large'))).toEqual([]);
    }
  });

  it("a run that streams is not held to the cap: it runs to the scenario's own budget", async () => {
    const io = capture();
    const r = await runCommand('forever.json', scenario, { set: [], head: 2, tail: 2 }, io, pc.createColors(false), { ...RUN_CAPS, keptEvents: 400 });
    expect(r.end.stop).toMatchObject({ reason: 'event-budget', events: 5000 });
    expect(io.outText).toContain('Run stopped at its event budget (5000 events)');
  });
});

describe('the timeline with --head and --tail', () => {
  it('shows the first and last events of the full timeline and says how many lines it elided', async () => {
    // Columns are measured on what is shown, so rows are compared without their padding.
    const words = (text: string): string[] => text.split('\n').map((l) => l.trim().replace(/\s+/g, ' '));
    const full = words((await cli('run', 'pause-past-expiry')).out);
    const r = await cli('run', 'pause-past-expiry', '--head', '3', '--tail', '2');
    expect(r.code).toBe(0);
    const out = words(r.out);
    const header = full.findIndex((l) => l.includes('true time local clock'));
    expect(out.slice(header + 1, header + 4)).toEqual(full.slice(header + 1, header + 4));
    expect(out[header + 4]).toBe('… 29 lines elided here (27 events, 2 double-ownership marks; of 32 events in all) …');
    const lastEvent = full.findIndex((l) => l.startsWith('Verdict:')) - 2;
    expect(out.slice(header + 5, header + 7)).toEqual(full.slice(lastEvent - 1, lastEvent + 1));
    expect(r.out).toContain('Verdict: UNSAFE');
  });

  it("elides nothing when head and tail cover the run, and everything but the marks' count when both are 0", async () => {
    const all = await cli('run', 'pause-past-expiry', '--head', '20', '--tail', '20');
    expect(all.out).not.toContain('elided');
    expect(all.out).toBe((await cli('run', 'pause-past-expiry')).out);
    const none = await cli('run', 'pause-past-expiry', '--head', '0', '--tail', '0');
    expect(none.out).toContain('… 34 lines elided at the start (32 events, 2 double-ownership marks; of 32 events in all) …');
  });
});

describe('EventWindow', () => {
  const ev = (seq: number): TraceEvent => ({ seq, timeUs: seq, kind: 'client.start', actor: 'A', machine: 'm' });

  it('keeps the first head events and the last tail events, oldest first, and counts the rest', () => {
    const w = new EventWindow(2, 3);
    for (let i = 0; i < 11; i++) w.push(ev(i));
    expect(w.head.map((e) => e.seq)).toEqual([0, 1]);
    expect(w.tail.map((e) => e.seq)).toEqual([8, 9, 10]);
    expect(w.elided).toBe(6);
    expect(w.total).toBe(11);
  });

  it('a whole kept trace is printed from its columns, in pieces, as the same text as its events formatted at once', async () => {
    // Over 4,096 lines, so the timeline comes in more than one piece, and over 4,096 events, so most are read back from columns.
    const scenario = normalizeScenario(workloadScenario(500), 'workload.json');
    const io = { outText: '', errText: '', out: (t: string) => (io.outText += t), err: (t: string) => (io.errText += t) };
    const writes: string[] = [];
    const counting = { ...io, out: (t: string) => (writes.push(t), io.out(t)) };
    await runCommand('workload.json', scenario, { set: [] }, counting, pc.createColors(false));
    const r = runJob(scenario, scenario.seed, { trace: true, hash: false });
    const run = { scenario, seed: scenario.seed, source: 'sim' as const, verdict: r.verdict };
    const events = r.trace!.toArray();
    expect(events.length).toBeGreaterThan(3 * 4096);
    const timeline = formatTimeline({ ...run, events }, pc.createColors(false));
    expect(io.outText.startsWith(`${timeline}\n\n`)).toBe(true);
    expect(timeline.split('\n').length).toBeGreaterThan(events.length);
    // The timeline went out a piece at a time, not as one string.
    expect(writes.length).toBeGreaterThan(3);
    expect(Math.max(...writes.map((w) => w.length))).toBeLessThan(timeline.length / 3);
  });

  it('with fewer events than head and tail hold, elides none and repeats none', () => {
    const w = new EventWindow(2, 3);
    for (let i = 0; i < 4; i++) w.push(ev(i));
    expect([...w.head, ...w.tail].map((e) => e.seq)).toEqual([0, 1, 2, 3]);
    expect(w.elided).toBe(0);
  });
});

describe('locklab check of a JSON Lines trace', () => {
  it('judges a streamed trace exactly as the same run written as one document: run hash, verdict, exit code', async () => {
    for (const name of ['pause-past-expiry', 'fencing-newer-token-unseen', 'zookeeper-restart']) {
      const json = join(dir, `${name}.json`);
      const jsonl = join(dir, `${name}.jsonl`);
      await cli('run', name, '--out', json);
      await cli('run', name, '--out', jsonl, '--head', '0');
      const a = await cli('check', json, '--json');
      const b = await cli('check', jsonl, '--json');
      expect(b).toEqual(a);
      expect((await cli('check', jsonl)).out).toBe((await cli('check', json)).out);
    }
  });

  it('a streamed run stopped at its budget is read back as stopped: exit 3', async () => {
    const file = scenarioFile('forever-check.json', forever(2000));
    const jsonl = join(dir, 'forever.jsonl');
    expect((await cli('run', file, '--out', jsonl, '--tail', '1')).code).toBe(3);
    const r = await cli('check', jsonl);
    expect(r.code).toBe(3);
    expect(r.err).toContain('the run stopped at its event budget');
  });

  it('refuses a cut-short, disordered or malformed JSON Lines trace, naming the event, the field and the line', async () => {
    const good = (await cli('run', 'pause-past-expiry', '--json', '--stream')).out.split('\n').slice(0, -1);
    const write = (name: string, ls: string[]): string => {
      const f = join(dir, name);
      writeFileSync(f, `${ls.join('\n')}\n`);
      return f;
    };
    const cut = await cli('check', write('cut.jsonl', good.slice(0, -1)));
    expect(cut.code).toBe(2);
    expect(cut.err).toContain('stop: is missing: the last line of a JSON Lines trace has "stop" and "verdict" (was the run cut short?)');

    const swapped = [...good];
    [swapped[3], swapped[4]] = [swapped[4]!, swapped[3]!];
    const order = await cli('check', write('order.jsonl', swapped));
    expect(order.code).toBe(2);
    expect(order.err).toContain('events[2].seq: expected 2 (events are numbered in order), got 3 (line 4)');

    const noOwner = good.map((l, i) => (i > 0 && l.includes('"kind":"lock.granted"') ? l.replace(/"owner":"[^"]*",/, '') : l));
    const owner = await cli('check', write('owner.jsonl', noOwner));
    expect(owner.code).toBe(2);
    expect(owner.err).toMatch(/events\[\d+\]\.owner/);

    const junk = await cli('check', write('junk.jsonl', [good[0]!, '{"seq": 0,', ...good.slice(2)]));
    expect(junk.err).toBe(`locklab: ${join(dir, 'junk.jsonl')}: line 2 is not valid JSON (a JSON Lines trace has one JSON object per line)\n`);

    const empty = await cli('check', write('empty.jsonl', []));
    expect(empty.code).toBe(2);
    const scenario = await cli('check', write('scenario.jsonl', [JSON.stringify(BUILTIN_SCENARIOS['pause-past-expiry'])]));
    expect(scenario.err).toContain('schema: is required on line 1, the first (not a Locklab trace)');
    for (const r of [cut, order, owner, junk, empty, scenario]) expect(r.err).not.toMatch(/\n\s+at /);
  });
});

describe('a JSON Lines trace whose verdict is long', () => {
  it('holds its verdict cut as a bounded judgement cuts it, so that `locklab check` reads it back and finds the same', async () => {
    // 4,000 lock cycles of the bench workload: about a thousand lock-out spans per client.
    const file = scenarioFile('workload.json', workloadScenario(4_000));
    const out = join(dir, 'workload.jsonl');
    // The whole timeline is printed, so this run keeps its trace and is judged whole.
    const run = await cli('run', file, '--out', out);
    expect(run.code).toBe(0);
    const last = JSON.parse(readFileSync(out, 'utf8').trimEnd().split('\n').pop()!) as { verdict: Verdict };
    const a = last.verdict.availability[0]!;
    expect(a.lockOut).toHaveLength(SPANS_KEPT);
    expect(a.lockOutOmitted).toBeGreaterThan(500);
    const check = await cli('check', out, '--json');
    expect(check.code).toBe(0);
    const judged = JSON.parse(check.out) as { verdict: Verdict; storedVerdictDiffers?: true };
    expect(judged.storedVerdictDiffers).toBeUndefined();
    expect(judged.verdict).toEqual(last.verdict);
    // The trace document, judged whole, lists the same first spans of a free key and counts the same rest; its events hold them all.
    const doc = join(dir, 'workload.json.trace');
    expect((await cli('run', file, '--json', '--out', `${doc}.json`)).code).toBe(0);
    const whole = JSON.parse(readFileSync(`${doc}.json`, 'utf8')) as TraceDocument;
    expect(whole.verdict.availability[0]).toEqual(a);
    const again = JSON.parse((await cli('check', `${doc}.json`, '--json')).out) as { verdict: Verdict; storedVerdictDiffers?: true };
    expect(again.storedVerdictDiffers).toBeUndefined();
    expect(again.verdict.availability).toEqual(whole.verdict.availability);
  });
});

describe('an interrupted run', () => {
  /** The temporary files beside `target` that --out writes before it puts the file in place. */
  const temporaries = (target: string): string[] => readdirSync(dir).filter((f) => f.startsWith(`.${target}.`) && f.endsWith('.tmp'));

  /** Starts `locklab run` on a run that would take minutes, waits until its file is being written, sends `signal`, and returns how it ended. */
  async function interrupt(target: string, signal: NodeJS.Signals, extra: string[]): Promise<{ code: number | null; err: string; ms: number }> {
    // Fifty clients and a hundred million kernel events: minutes of work.
    const file = scenarioFile(`long-${target}.json`, workloadScenario(2_000_000));
    const child = spawn(process.execPath, ['--import', 'tsx', 'sim/cli/start.ts', 'run', file, '--out', join(dir, target), ...extra], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    let ended = false;
    const exited = new Promise<number | null>((r) =>
      child.on('exit', (c) => {
        ended = true;
        r(c);
      }),
    );
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    // Until the temporary file exists and has been written to for a while (a busy machine starts tsx slowly).
    const begun = Date.now();
    while (!ended && Date.now() - begun < 60_000) {
      const tmp = temporaries(target);
      if (tmp.length > 0 && (extra.length > 0 || statSync(join(dir, tmp[0]!)).size > 100_000)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(ended, err).toBe(false);
    expect(temporaries(target)).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 300));
    const sent = Date.now();
    child.kill(signal);
    const code = await exited;
    clearTimeout(killer);
    return { code, err, ms: Date.now() - sent };
  }

  it('with Ctrl-C stops within moments, exits 130, says so, and leaves no temporary file and no half-written trace', { timeout: 120_000 }, async () => {
    const r = await interrupt('long.jsonl', 'SIGINT', ['--tail', '3']);
    expect(r.code).toBe(130);
    expect(r.err).toMatch(/^locklab: .*long-long\.jsonl\.json: interrupted \(SIGINT\) after [\d,]+ kernel events; nothing was written to .*long\.jsonl\n$/);
    expect(r.ms).toBeLessThan(10_000);
    expect(temporaries('long.jsonl')).toEqual([]);
    expect(existsSync(join(dir, 'long.jsonl'))).toBe(false);
  });

  it('with SIGTERM while it keeps its trace for a whole document, exits 143 and leaves nothing behind', { timeout: 120_000 }, async () => {
    // The run that keeps its trace is held to maxTraceEvents (a second or two); the signal comes while it runs.
    const r = await interrupt('kept.json', 'SIGTERM', ['--json']);
    expect(r.code).toBe(143);
    expect(r.err).toContain('interrupted (SIGTERM) after');
    expect(temporaries('kept.json')).toEqual([]);
    expect(existsSync(join(dir, 'kept.json'))).toBe(false);
  });

  it('run in slices, as the command runs it to look for interruptions, gives the run hash, events and verdict of one run', () => {
    for (const name of ['pause-past-expiry', 'redlock-clock-jump', 'zookeeper-session-expiry', 'random-gc-pauses']) {
      const scenario = normalizeScenario(BUILTIN_SCENARIOS[name], name);
      const whole = runJob(scenario, 7);
      for (const slice of [1, 3, 1000]) {
        const job = startJob(scenario, 7);
        let stop;
        let slices = 0;
        while ((stop = job.advance(slice)) === undefined) slices++;
        const r = job.finish(stop);
        expect(r.runHash, `${name} in slices of ${slice}`).toBe(whole.runHash);
        expect(r.stop).toEqual(whole.stop);
        expect(r.verdict).toEqual(whole.verdict);
        if (slice === 1) expect(slices).toBeGreaterThan(10);
      }
    }
    // A run stopped by its own event budget stops there, in slices too, however the slices fall.
    const capped = normalizeScenario(forever(5000), 'forever.json');
    const job = startJob(capped, capped.seed);
    let stop;
    while ((stop = job.advance(777)) === undefined);
    expect(stop).toEqual(runJob(capped).stop);
    expect(stop).toMatchObject({ reason: 'event-budget', events: 5000 });
  });
});
