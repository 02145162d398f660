import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pc from 'picocolors';
import { beforeAll, describe, expect, it } from 'vitest';
import { contentionScenario } from '../../bench/contention.js';
import { formatStop, formatTimeline } from '../../sim/cli/format.js';
import { formatInstant } from '../../sim/time.js';
import { InputError } from '../../sim/errors.js';
import { parseJson } from '../../sim/json.js';
import { runScenario } from '../../sim/run.js';
import { grouped, LIMIT_UNITS, LIMITS, limitText, type LimitName } from '../../sim/scenario/limits.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { serializeTrace } from '../../sim/trace/io.js';
import { validateTrace } from '../../sim/trace/validate.js';
import { cli } from '../support/cli.js';
import { refusal, scenarioIssues } from '../support/refusal.js';

/*
 * Regressions of sizes and ranges: 100,000 bad faults took 89 s and printed
 * 199,999 lines; `clockOffsetMs: 1e308` ran and wrote a trace `locklab check`
 * refused; `refreshEveryMs` under half a microsecond silently meant never;
 * a trace of more than about 120,000 events crashed the timeline.
 */

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-limits-'));
});

const base = (): Record<string, unknown> => structuredClone(BUILTIN_SCENARIOS['pause-past-expiry']) as Record<string, unknown>;
const badFaults = (n: number): Record<string, unknown> => ({ ...base(), faults: Array.from({ length: n }, () => ({ kind: 'pause', atMs: -1 })) });

describe('limits', () => {
  it('100,000 bad faults are refused with one line: a file by its size, a value by the fault limit', async () => {
    const file = join(dir, 'faults.json');
    writeFileSync(file, JSON.stringify(badFaults(100_000)));
    const r = await cli('run', file);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(new RegExp(`^locklab: ${file}: is [\\d,]+ bytes; the limit is 1,048,576 bytes \\(maxScenarioBytes\\)\n$`));
    expect(refusal(badFaults(100_000))).toBe('bad.json: faults: has 100,000 items; the limit is 1,000 faults (maxFaults)');
  });

  it('a thousand bad faults print the first 20 issues, then how many more', async () => {
    const file = join(dir, 'thousand.json');
    writeFileSync(file, JSON.stringify(badFaults(1000)));
    const r = await cli('run', file);
    const lines = r.err.trim().split('\n');
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe(`locklab: ${file}: faults[0].target: is required but missing`);
    expect(lines[20]).toMatch(new RegExp(`^locklab: ${file}: and \\d+ more issues$`));
    expect(Number(/and (\d+) more/.exec(lines[20]!)![1]) + 20).toBeGreaterThanOrEqual(2000);
  });

  it('InputError keeps at most maxIssuesShown issues and counts the rest', () => {
    const e = new InputError(
      'x',
      Array.from({ length: 50 }, (_, i) => ({ path: `a[${i}]`, message: 'bad' })),
    );
    expect(e.issues).toHaveLength(LIMITS.maxIssuesShown);
    expect(e.more).toBe(30);
    expect(e.shown().at(-1)).toEqual({ path: '', message: 'and 30 more issues' });
  });

  it('each scenario list is held to its own limit, by name', () => {
    const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));
    expect(refusal({ ...base(), machines: many(65, (i) => ({ name: `m${i}` })) })).toBe(
      'bad.json: machines: has 65 items; the limit is 64 machines (maxMachines)',
    );
    expect(refusal({ ...base(), clients: many(201, (i) => ({ name: `c${i}`, machine: 'app1' })) })).toBe(
      'bad.json: clients: has 201 items; the limit is 200 clients (maxClients)',
    );
    const groups = [many(1001, () => 'app1'), ['db']];
    expect(refusal({ ...base(), faults: [{ kind: 'partition', atMs: 0, durationMs: 1, groups }] })).toBe(
      'bad.json: faults[0].groups[0]: has 1,001 items; the limit is 1,000 items (maxArrayItems)',
    );
    const spread = [many(65, () => 'app1'), ['db']];
    expect(refusal({ ...base(), faults: [{ kind: 'partition', atMs: 0, durationMs: 1, groups: spread }] })).toBe(
      'bad.json: faults[0].groups[0]: has 65 items; the limit is 64 machines (maxMachines)',
    );
  });

  it('the event budget is held to maxEvents; a run that keeps its trace and needs fewer than maxTraceEvents runs whole', async () => {
    expect(refusal({ ...base(), budget: { maxEvents: 100_000_001 } })).toBe(
      `bad.json: budget.maxEvents: must be at most ${grouped(LIMITS.maxEvents)}, got 100000001`,
    );
    // A budget above maxTraceEvents is no reason to refuse: the kept run stops there only if it gets there (test/cli-stream.test.ts).
    const file = join(dir, 'long.json');
    writeFileSync(file, JSON.stringify({ ...base(), budget: { maxEvents: 2_000_000 } }));
    const r = await cli('run', file);
    expect(r.code).toBe(0);
    expect(r.err).toBe('');
    expect(r.out).toContain('Run completed: 32 trace events');
  });

  it('a name or summary longer than maxTextChars is refused', () => {
    expect(refusal({ ...base(), summary: 'x'.repeat(LIMITS.maxTextChars + 1) })).toBe(
      `bad.json: summary: has ${grouped(LIMITS.maxTextChars + 1)} characters; ${limitText('maxTextChars')}`,
    );
    expect(refusal({ ...base(), name: 'y'.repeat(LIMITS.maxTextChars + 5) })).toBe(
      `bad.json: name: has ${grouped(LIMITS.maxTextChars + 5)} characters; ${limitText('maxTextChars')}`,
    );
  });

  it('every limit has a unit for its message', () => {
    for (const name of Object.keys(LIMITS) as LimitName[]) expect(LIMIT_UNITS[name], name).toBeDefined();
  });

  it('docs/limits.md lists every limit by name with its value', () => {
    const doc = readFileSync(new URL('../../docs/limits.md', import.meta.url), 'utf8');
    for (const name of Object.keys(LIMITS) as LimitName[]) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${name}\``));
      expect(row, name).toBeDefined();
      expect(row, name).toContain(`| ${grouped(LIMITS[name])}${LIMIT_UNITS[name] === '' ? '' : ` ${LIMIT_UNITS[name]}`} `);
    }
  });
});

describe('values that once produced traces locklab check refused', () => {
  it('clockOffsetMs: 1e308 is refused at its path', () => {
    const doc = base();
    (doc.machines as Array<Record<string, unknown>>)[0]!.clockOffsetMs = 1e308;
    expect(refusal(doc)).toBe('bad.json: machines[0].clockOffsetMs: must be at most 31,536,000,000 ms, got 1e+308 ms');
  });

  it('a limit is said in the unit its field is named in', () => {
    const doc = base();
    (doc.machines as Array<Record<string, unknown>>)[0]!.clockDriftPpm = -200000;
    expect(refusal(doc)).toBe('bad.json: machines[0].clockDriftPpm: must be at least -100,000 ppm, got -200000 ppm');
  });

  it('the most extreme clocks the schema allows still write a trace that check reads back', () => {
    const doc = base();
    doc.machines = [
      { name: 'app1', clockOffsetMs: 31536000000, clockDriftPpm: 100000 },
      { name: 'app2', clockOffsetMs: -31536000000, clockDriftPpm: -100000 },
      { name: 'db', clockOffsetMs: 31536000000, clockDriftPpm: -100000 },
    ];
    doc.faults = [...(doc.faults as unknown[]), { kind: 'clock-jump', atMs: 2000, machine: 'db', byMs: 31536000000 }];
    const trace = runScenario(normalizeScenario(doc, 'edge.json'));
    expect(() => validateTrace(parseJson(serializeTrace(trace), 'trace.json', 'trace'), 'trace.json')).not.toThrow();
  });

  it('a refresh interval under the 1 µs resolution is refused instead of silently meaning never', () => {
    const doc = base();
    (doc.clients as Array<Record<string, unknown>>)[0]!.refreshEveryMs = 0.0004;
    expect(refusal(doc)).toBe("bad.json: clients[0].refreshEveryMs: must be at least 0.001 ms (1 µs: the simulation's time resolution), got 0.0004 ms");
  });

  it('every positive duration is held to the resolution, not just refreshEveryMs', () => {
    const doc = base();
    (doc.faults as Array<Record<string, unknown>>)[0]!.durationMs = 0.0001;
    (doc.clients as Array<Record<string, unknown>>)[1]!.ttlMs = 0.0002;
    expect(scenarioIssues(doc).map((i) => i.path)).toEqual(['clients[1].ttlMs', 'faults[0].durationMs']);
  });
});

describe('long traces', () => {
  it('the timeline of a trace of over 120,000 events is printed, where spreading its rows overflowed', () => {
    const doc = runScenario(normalizeScenario(contentionScenario(), 'contention'));
    expect(doc.events.length).toBeGreaterThan(120_000);
    const text = formatTimeline(doc, pc.createColors(false));
    expect(text.split('\n').length).toBeGreaterThan(doc.events.length);
    // Its counts are written with their digits grouped, as every other count.
    const end = formatStop({ scenario: doc.scenario, stop: doc.stop, traceEvents: doc.events.length }, pc.createColors(false));
    expect(end).toBe(
      `Run completed: ${grouped(doc.events.length)} trace events, ${grouped(doc.stop.events)} kernel events, ${formatInstant(doc.stop.timeUs)} of simulated time.`,
    );
    expect(end).toMatch(/^Run completed: \d{3},\d{3} trace events, \d{3},\d{3} kernel events/);
  });
});
