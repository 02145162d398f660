import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { runHash } from '../sim/trace/hash.js';
import type { TraceDocument } from '../sim/trace/types.js';
import { cli } from './support/cli.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { applyOverrides } from '../sim/scenario/set.js';
import { runScenario } from '../sim/run.js';
import { deriveIntervals } from '../sim/check/intervals.js';
import { percent2 } from '../sim/words.js';
import { STORE_KINDS, STORE_TABLE } from '../sim/stores/registry.js';

let dir: string;
const base = BUILTIN_SCENARIOS['pause-past-expiry'] as Record<string, unknown>;

/** Writes a scenario file derived from pause-past-expiry, changed by `edit`. */
function scenarioFile(name: string, edit: (s: Record<string, unknown>) => void): string {
  const s = structuredClone(base);
  edit(s);
  const file = join(dir, name);
  writeFileSync(file, JSON.stringify(s, null, 2));
  return file;
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'locklab-cli-'));
});

// The tests leave nothing behind in the machine's temporary directory.
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A user's mistake: exit 2, one clear line per problem naming where, and no stack trace. */
function expectBadInput(r: { code: number; out: string; err: string }, ...fragments: string[]): void {
  expect(r.code).toBe(2);
  expect(r.out).toBe('');
  for (const f of fragments) expect(r.err).toContain(f);
  expect(r.err).not.toMatch(/\n\s+at /);
  expect(r.err.trim().split('\n').length).toBeLessThanOrEqual(3);
}

describe('locklab run', () => {
  it('prints the aligned timeline and ends with the verdict; exit 0 even when unsafe', async () => {
    const r = await cli('run', 'pause-past-expiry');
    expect(r.code).toBe(0);
    expect(r.out).toContain('true time  local clock  actor');
    expect(r.out).toMatch(/grants job to A:1, fencing token 33/);
    expect(r.out).toMatch(/accepts the write from A:1 \(token 33\) {2}← STALE WRITE ACCEPTED/);
    expect(r.out).toContain('▲ double ownership: A and B both believe they hold job');
    expect(r.out).toContain('Verdict: UNSAFE');
    // Counts in words, singular for one.
    expect(r.out).toContain('  1 double-ownership window, 1 stale write (1 accepted), 0 unprotected writes, 1 lost lock.\n');
    expect(r.out).toContain('Reproduce: locklab run pause-past-expiry --seed 7');
    expect(r.out).not.toContain('\u001b[');
  });

  it("ends with the run's lock cycles and how many were double-owned, as a direct count of its beliefs finds them", async () => {
    expect((await cli('run', 'pause-past-expiry')).out).toContain('  2 lock cycles, both double-owned.\n');
    const scenario = normalizeScenario(BUILTIN_SCENARIOS['random-gc-pauses'], 'random-gc-pauses');
    // Seed 4 at a 20 s TTL has some cycles double-owned and not others; seed 1 at the scenario's own TTL has none.
    for (const [seed, ttl] of [
      [4, 20000],
      [1, undefined],
    ] as const) {
      const run = runScenario(ttl === undefined ? scenario : applyOverrides(scenario, [{ path: 'clients[*].ttlMs', value: ttl }]), seed);
      const intervals = deriveIntervals(run.events);
      const doubled = intervals.beliefs.filter((b) =>
        intervals.beliefs.some(
          (o) => o.client !== b.client && o.key === b.key && o.startUs < (b.endUs ?? intervals.lastUs) && b.startUs < (o.endUs ?? intervals.lastUs),
        ),
      ).length;
      const n = intervals.beliefs.length;
      const args = ['run', 'random-gc-pauses', '--seed', String(seed), ...(ttl === undefined ? [] : ['--set', `clients[*].ttlMs=${ttl}`])];
      const r = await cli(...args);
      const expected =
        doubled === 0
          ? `  ${n} lock cycles, none of them double-owned.\n`
          : `  ${n} lock cycles, ${doubled} of them double-owned (${percent2(doubled / n)} %).\n`;
      expect(r.out).toContain(expected);
      if (ttl !== undefined) expect(doubled).toBeGreaterThan(0);
      // A trace written by the run and read back by check says the same.
      const out = join(dir, `cycles-${seed}.jsonl`);
      await cli(...args, '--out', out);
      expect((await cli('check', out)).out).toContain(expected);
    }
  });

  it('points a run of random faults to the sweep that gives its odds, with the same overrides; a scripted story gets no such line', async () => {
    const r = await cli('run', 'random-gc-pauses', '--seed', '4', '--set', 'clients[*].ttlMs=20000');
    const line = r.out.split('\n').find((l) => l.startsWith('How often it breaks'));
    expect(line).toBe(
      "How often it breaks (its faults are random, and a seed is one draw of them): locklab sweep random-gc-pauses --seeds 1..1000 --set 'clients[*].ttlMs=20000'",
    );
    // The command runs as printed (here over seed 4 alone): that seed's run is one with double ownership.
    const sweep = await cli('sweep', 'random-gc-pauses', '--seeds', '4..4', '--set', 'clients[*].ttlMs=20000', '--json', '--quiet');
    expect(sweep.code).toBe(0);
    expect((JSON.parse(sweep.out) as { combinations: Array<{ doubleOwnership: { k: number } }> }).combinations[0]!.doubleOwnership.k).toBe(1);
    expect((await cli('run', 'pause-past-expiry')).out).not.toContain('How often it breaks');
  });

  it('--set resource.fencing=true makes the same story fenced', async () => {
    const r = await cli('run', 'pause-past-expiry', '--set', 'resource.fencing=true');
    expect(r.code).toBe(0);
    expect(r.out).toContain('REJECTS the write from A:1: token 33 < 34');
    expect(r.out).toContain('Verdict: FENCED');
  });

  it('says when the clients lock different keys: they never kept each other out, which no finding shows', async () => {
    const file = scenarioFile('keys.json', (s) => ((s.clients as Array<Record<string, unknown>>)[1]!.key = 'jobs'));
    const r = await cli('run', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain('Verdict: SAFE');
    expect(r.out).toContain(
      '  • Note: the clients lock different keys (A on "job"; B on "jobs"): a lock on one key keeps no one off another, so clients on different keys never kept each other out, though they share the one resource.',
    );
    expect((await cli('run', 'pause-past-expiry')).out).not.toContain('lock different keys');
  });

  it('a pause or crash of a client that has already finished or crashed shows in the timeline as doing nothing', async () => {
    const file = scenarioFile('after-done.json', (s) => {
      s.faults = [
        { kind: 'crash', target: 'B', atMs: 30_000 },
        { kind: 'crash', target: 'A', atMs: 1000 },
        { kind: 'pause', target: 'A', atMs: 2000, durationMs: 15_000 },
      ];
    });
    const r = await cli('run', file);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toMatch(/ 2\.000 s +faults@app1 +the pause of A \(faults\[2\]\) does nothing: A had already crashed\n/);
    expect(r.out).toMatch(/30\.000 s +faults@app2 +the crash of B \(faults\[0\]\) does nothing: B had already finished\n/);
    const doc = JSON.parse((await cli('run', file, '--json')).out) as TraceDocument;
    expect(doc.events.filter((e) => e.kind === 'fault.missed').map((e) => e.data)).toEqual([
      { fault: 2, what: 'pause', target: 'A', why: 'crashed' },
      { fault: 0, what: 'crash', target: 'B', why: 'finished' },
    ]);
  });

  it('a run that stops at its time budget waiting for a fault or a client start set after it says so, rather than that it was long', async () => {
    const fault = scenarioFile('late-fault.json', (s) => (s.faults = [{ kind: 'pause', target: 'A', atMs: 7_200_000, durationMs: 15_000 }]));
    const r = await cli('run', fault);
    expect(r.code).toBe(3);
    expect(r.out).toContain(
      'Run stopped at its simulated-time budget (3600 s) after 16 kernel events and 6.009 s: faults[0] (pause at 7200 s) was set after the budget and never happened. Move it earlier, or raise budget.maxTimeMs.\n',
    );
    expect(r.out).not.toContain('long rather than stuck');
    const start = scenarioFile('late-start.json', (s) => {
      s.budget = { maxTimeMs: 60_000 };
      (s.clients as Array<Record<string, unknown>>)[1]!.startMs = 90_000;
    });
    expect((await cli('run', start)).out).toContain(
      "client B's start (at 90 s) was set after the budget and never happened. Move it earlier, or raise budget.maxTimeMs.",
    );
  });

  it('--fail-on unsafe exits 1 for an unsafe run and 0 for a fenced one', async () => {
    expect((await cli('run', 'pause-past-expiry', '--fail-on', 'unsafe')).code).toBe(1);
    expect((await cli('run', 'pause-past-expiry', '--fail-on', 'unsafe', '--set', 'resource.fencing=true')).code).toBe(0);
    expect((await cli('run', 'pause-past-expiry', '--fail-on', 'fenced', '--set', 'resource.fencing=true')).code).toBe(1);
  });

  it('--json prints the trace document with scenario, seed, events and verdict', async () => {
    const r = await cli('run', 'pause-past-expiry', '--json', '--seed', '12');
    const doc = JSON.parse(r.out) as Record<string, unknown>;
    expect(Object.keys(doc)).toEqual(['schema', 'source', 'scenario', 'seed', 'stop', 'events', 'verdict']);
    expect(doc.seed).toBe(12);
    expect(Object.keys(doc.verdict as object)).toEqual(expect.arrayContaining(['outcome', 'doubleOwnership', 'staleWrites', 'lostLocks']));
  });

  it('--out writes the trace, and `check` reads it back to the same verdict', async () => {
    const out = join(dir, 'trace.json');
    const r = await cli('run', 'pause-past-expiry', '--out', out);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`Trace written to ${out}`);
    const c = await cli('check', out, '--json');
    expect(c.code).toBe(0);
    const stored = JSON.parse(readFileSync(out, 'utf8')) as TraceDocument;
    expect(JSON.parse(c.out)).toEqual({ runHash: runHash(stored), stop: stored.stop, verdict: stored.verdict });
    expect((await cli('check', out)).out).toContain('Verdict: UNSAFE');
    expect((await cli('check', out, '--fail-on', 'unsafe')).code).toBe(1);
  });

  it('check says when the verdict stored in a trace differs from the one recomputed from its events', async () => {
    const out = join(dir, 'tampered.json');
    await cli('run', 'pause-past-expiry', '--out', out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as TraceDocument;
    writeFileSync(out, JSON.stringify({ ...doc, verdict: { ...doc.verdict, outcome: 'safe', staleWrites: [] } }));
    const c = await cli('check', out);
    expect(c.code).toBe(0);
    expect(c.out).toContain('Verdict: UNSAFE');
    expect(c.err).toContain('the verdict stored in the file differs from the one recomputed from its events (outcome safe stored, unsafe now)');
  });

  it('check of a trace that stopped at its budget says so and exits 3', async () => {
    const out = join(dir, 'budget.json');
    const r = await cli('run', 'pause-past-expiry', '--set', 'budget.maxEvents=20', '--out', out);
    expect(r.code).toBe(3);
    const c = await cli('check', out);
    expect(c.code).toBe(3);
    expect(c.err).toContain('the run stopped at its event budget, so this verdict covers only what happened before it');
  });

  it('check refuses a trace that lacks what the checker needs, naming the event and field', async () => {
    const out = join(dir, 'no-owner.json');
    await cli('run', 'pause-past-expiry', '--out', out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as TraceDocument;
    const i = doc.events.findIndex((e) => e.kind === 'lock.granted');
    delete doc.events[i]!.owner;
    writeFileSync(out, JSON.stringify(doc));
    const c = await cli('check', out);
    expect(c.code).toBe(2);
    expect(c.err).toContain(`events[${i}].owner`);
    expect(c.err).not.toContain('    at ');
  });

  it('--out into a missing directory fails cleanly and leaves nothing behind', async () => {
    const r = await cli('run', 'pause-past-expiry', '--out', join(dir, 'missing', 'trace.json'));
    expectBadInput(r, 'cannot write: its directory does not exist');
  });

  it('--out never leaves a temporary file beside the trace', async () => {
    const sub = mkdtempSync(join(dir, 'out-'));
    await cli('run', 'crash-without-release', '--out', join(sub, 't.json'));
    expect(readdirSync(sub)).toEqual(['t.json']);
  });

  it('runs a scenario file given by path', async () => {
    const file = scenarioFile('ok.json', (s) => (s.name = 'my-story'));
    const r = await cli('run', file);
    expect(r.code).toBe(0);
    expect(r.out).toContain('my-story');
  });

  it('stops a scenario that would run for ever at its budget, says so, and exits 3', async () => {
    const file = scenarioFile('forever.json', (s) => {
      s.budget = { maxEvents: 5000 };
      s.faults = [];
      s.clients = [
        { name: 'A', machine: 'app1', ttlMs: 600000, workMs: 500000 },
        { name: 'B', machine: 'app2', acquire: { mode: 'blocking' } },
      ];
    });
    const r = await cli('run', file);
    expect(r.code).toBe(3);
    expect(r.out).toContain('Run stopped at its event budget (5000 events)');
  });
});

describe('--set beyond the fields a scenario wrote', () => {
  const store = async (...sets: string[]): Promise<Record<string, unknown>> => {
    const r = await cli('run', 'pause-past-expiry', ...sets.flatMap((s) => ['--set', s]), '--json');
    expect(r.code, r.err).toBe(0);
    return (JSON.parse(r.out) as TraceDocument).scenario.store as unknown as Record<string, unknown>;
  };

  it("changes the store's kind with the new kind's defaults, keeping what the scenario chose that the new kind has", async () => {
    expect(await store('store.kind=memcached')).toEqual({
      kind: 'memcached',
      name: 'memcached',
      machine: 'db',
      memoryBytes: 67108864,
      keyPrefix: '',
      initialTtlMs: 300000,
      evictions: true,
    });
    // Redis's fencing counter start means nothing to Memcached, whoever set it; a key prefix does.
    expect(await store('store.fencingTokenStart=5', 'store.keyPrefix=app:', 'store.kind=memcached')).toMatchObject({ kind: 'memcached', keyPrefix: 'app:' });
    expect(await store('store.kind=postgres')).toEqual({ kind: 'postgres', name: 'postgres', machine: 'db' });
    const r = await cli('run', 'pause-past-expiry', '--set', 'store.kind=memcached');
    expect(r.out).toContain('memcached');
    expect(r.out).toContain('Verdict: UNSAFE');
  });

  it("changes a fault's kind, and adds a client's optional fields: a drawn work time, pauses after acquiring, a crash rate, steps", async () => {
    const doc = async (...sets: string[]): Promise<TraceDocument['scenario']> => {
      const r = await cli('run', 'pause-past-expiry', ...sets.flatMap((s) => ['--set', s]), '--json');
      expect(r.code, r.err).toBe(0);
      return (JSON.parse(r.out) as TraceDocument).scenario;
    };
    expect((await doc('faults[0].kind=crash')).faults).toEqual([{ kind: 'crash', atMs: 1000, target: 'A' }]);
    const drawn = (await doc('clients.A.workTime={"distribution":"exponential","meanMs":20}')).clients[0]!;
    expect(drawn.workTime).toEqual({ distribution: 'exponential', meanMs: 20 });
    const paused = (await doc('clients.A.pauseAfterAcquire={"probability":1,"duration":{"distribution":"fixed","ms":20000}}')).clients[0]!;
    expect(paused.pauseAfterAcquire).toEqual({ probability: 1, duration: { distribution: 'fixed', ms: 20000 } });
    expect((await doc('clients.B.crashRatePerS=0.5')).clients[1]!.crashRatePerS).toBe(0.5);
    const scripted = (await doc('clients.A.steps=[{"step":"acquire"},{"step":"write"},{"step":"release"}]')).clients[0]!;
    expect(scripted.steps).toHaveLength(3);
  });

  it('sweeps over store kinds', async () => {
    const r = await cli('sweep', 'pause-past-expiry', '--seeds', '1..20', '--workers', '1', '--vary', 'store.kind=redis,memcached,zookeeper', '--json');
    expect(r.code, r.err).toBe(0);
    const report = JSON.parse(r.out) as { combinations: Array<{ params: Record<string, unknown>; runs: number; scenarioHash: string }> };
    expect(report.combinations.map((c) => c.params['store.kind'])).toEqual(['redis', 'memcached', 'zookeeper']);
    expect(report.combinations.every((c) => c.runs === 20)).toBe(true);
    expect(new Set(report.combinations.map((c) => c.scenarioHash)).size).toBe(3);
  });
});

describe('bad input: one clear line naming the file and path, exit 2, no stack trace', () => {
  it('malformed JSON', async () => {
    const file = join(dir, 'broken.json');
    writeFileSync(file, '{\n  "name": "x",\n  "machines": [}\n');
    expectBadInput(await cli('run', file), `${file}: not valid JSON at line 3, column 16: a value was expected`);
  });

  it('a trailing comma, as hand-written JSON often has: the comma is named, where it is', async () => {
    const list = join(dir, 'trailing-list.json');
    writeFileSync(list, '{\n  "name": "x",\n  "machines": [{ "name": "app1" },\n  ]\n}\n');
    expectBadInput(await cli('run', list), `${list}: not valid JSON at line 3, column 34: a trailing comma before ']' (JSON allows none)`);
    const object = join(dir, 'trailing-object.json');
    writeFileSync(object, '{ "name": "x", "seed": 1, }');
    expectBadInput(await cli('run', object), `${object}: not valid JSON at line 1, column 25: a trailing comma before '}' (JSON allows none)`);
  });

  it('a trace where a scenario belongs, whole or as JSON Lines: one line saying so, and what to do with it', async () => {
    const trace = join(dir, 'a-trace.json');
    const lines = join(dir, 'a-trace.jsonl');
    await cli('run', 'pause-past-expiry', '--out', trace);
    await cli('run', 'pause-past-expiry', '--out', lines);
    for (const file of [trace, lines]) {
      const r = await cli('run', file);
      expectBadInput(r, `${file}: is a trace, not a scenario: judge it with \`locklab check\`, or convert it with \`locklab export\``);
      expect(r.err.trim().split('\n')).toHaveLength(1);
    }
  });

  it('a summary longer than its limit names the limit', async () => {
    const file = scenarioFile('long-summary.json', (s) => (s.summary = 'x'.repeat(3000)));
    expectBadInput(await cli('run', file), `${file}: summary: has 3,000 characters; the limit is 2,000 characters (maxTextChars)`);
  });

  it('a file that does not exist', async () => {
    expectBadInput(await cli('run', join(dir, 'nope.json')), 'nope.json: no such file');
  });

  it('an unknown built-in name', async () => {
    expectBadInput(
      await cli('run', 'pause-past-expirty'),
      'pause-past-expirty: no such file, and no built-in scenario of that name (built-ins: pause-past-expiry,',
    );
  });

  it('an unknown store kind', async () => {
    const file = scenarioFile('store.json', (s) => (s.store = { kind: 'mysql', machine: 'db' }));
    expectBadInput(await cli('run', file), `${file}: store.kind: unknown store kind "mysql"; expected one of: redis`);
  });

  it('an unknown fault kind', async () => {
    const file = scenarioFile('fault.json', (s) => (s.faults = [{ kind: 'meteor', atMs: 5 }]));
    expectBadInput(
      await cli('run', file),
      `${file}: faults[0].kind: unknown fault kind "meteor"; expected one of: pause, crash, store-restart, partition, clock-jump, clock-drift, latency-spike`,
    );
  });

  it('a fault aimed at a client that does not exist', async () => {
    const file = scenarioFile('target.json', (s) => (s.faults = [{ kind: 'pause', target: 'Z', atMs: 1, durationMs: 5 }]));
    expectBadInput(await cli('run', file), `${file}: faults[0].target: no client named "Z" (clients: A, B)`);
  });

  it('a zero or negative TTL', async () => {
    const zero = scenarioFile('ttl0.json', (s) => ((s.clients as Array<Record<string, unknown>>)[0]!.ttlMs = 0));
    expectBadInput(await cli('run', zero), `${zero}: clients[0].ttlMs: must be at least 0.001 ms (1 µs: the simulation's time resolution), got 0 ms`);
    const negative = scenarioFile('ttl-.json', (s) => ((s.clients as Array<Record<string, unknown>>)[1]!.ttlMs = -5));
    expectBadInput(await cli('run', negative), `${negative}: clients[1].ttlMs: must be at least 0.001 ms (1 µs: the simulation's time resolution), got -5 ms`);
  });

  it('a duration that is not a number', async () => {
    const file = scenarioFile('dur.json', (s) => ((s.faults as Array<Record<string, unknown>>)[0]!.durationMs = '15s'));
    expectBadInput(await cli('run', file), `${file}: faults[0].durationMs: expected a number, got "15s"`);
  });

  it('an unknown field', async () => {
    const file = scenarioFile('field.json', (s) => ((s.clients as Array<Record<string, unknown>>)[0]!.ttl = 5));
    expectBadInput(await cli('run', file), `${file}: clients[0].ttl: unknown field; expected one of: name, machine, startMs, key, ttlMs`);
  });

  it('a misspelt field, or a duration named in seconds or without its unit: the message names the field it most likely meant', async () => {
    const cases: Array<[string, (c: Record<string, unknown>, s: Record<string, unknown>) => void, string]> = [
      ['case.json', (c) => (c.ttlMS = 30_000), 'clients[0].ttlMS: unknown field; expected one of: name, machine,'],
      ['unit.json', (c) => (c.ttl = 30), 'clients[0].ttl: unknown field;'],
      ['seconds.json', (c) => (c.ttlSec = 30), 'clients[0].ttlSec: unknown field;'],
    ];
    for (const [name, edit, said] of cases) {
      const file = scenarioFile(name, (s) => edit((s.clients as Array<Record<string, unknown>>)[0]!, s));
      const r = await cli('run', file);
      expectBadInput(r, `${file}: ${said}`, '; did you mean "ttlMs"?');
    }
    const store = scenarioFile('persistance.json', (s) => ((s.store as Record<string, unknown>).persistance = 'none'));
    expectBadInput(
      await cli('run', store),
      `${store}: store.persistance: unknown field; expected one of: kind, name, machine, persistence, fencingTokenStart, keyPrefix; did you mean "persistence"?`,
    );
    expectBadInput(
      await cli('run', 'pause-past-expiry', '--set', 'resource.fencin=true'),
      '--set: resource.fencin: unknown path: resource has no field "fencin" (fields: machine, fencing); did you mean "fencing"?',
    );
    expectBadInput(
      await cli('run', 'pause-past-expiry', '--set', 'clients.A.ttl=30000'),
      'has no field "ttl" (fields: name, machine, startMs, key, ttlMs,',
      '; did you mean "ttlMs"?',
    );
    // Nothing close, nothing guessed.
    const far = await cli('run', 'pause-past-expiry', '--set', 'resource.colour=red');
    expectBadInput(far, 'resource has no field "colour" (fields: machine, fencing)');
    expect(far.err).not.toContain('did you mean');
  });

  it('a seed that is not an integer', async () => {
    for (const seed of ['abc', '1.5', '-3']) {
      const r = await cli('run', 'pause-past-expiry', '--seed', seed);
      expectBadInput(r, `argument '${seed}' is invalid. expected a whole number from 0 to 4294967295`);
    }
  });

  it('an unknown --set path', async () => {
    expectBadInput(
      await cli('run', 'pause-past-expiry', '--set', 'resource.fencin=true'),
      '--set: resource.fencin: unknown path: resource has no field "fencin" (fields: machine, fencing)',
    );
    expectBadInput(await cli('run', 'pause-past-expiry', '--set', 'clients.Z.ttlMs=5'), '--set: clients.Z.ttlMs: clients has no item "Z" (items: A, B)');
    expectBadInput(
      await cli('run', 'pause-past-expiry', '--set', 'clients[*].ttlMx=5'),
      '--set: clients[*].ttlMx: unknown path: clients[0] has no field "ttlMx" (fields: ',
    );
  });

  it('a --set value of the wrong type', async () => {
    expectBadInput(await cli('run', 'pause-past-expiry', '--set', 'clients.A.ttlMs=soon'), '--set: clients.A.ttlMs: expected a number, got "soon"');
  });

  it('a duration given with a unit, in a file or once for every client --set gave it to, with the milliseconds to write', async () => {
    expectBadInput(
      await cli('run', 'pause-past-expiry', '--set', 'clients[*].ttlMs=30s'),
      '--set: clients[*].ttlMs: expected a number, got "30s": durations are in milliseconds, so write 30000',
    );
    expectBadInput(
      await cli('sweep', 'pause-past-expiry', '--seeds', '1..2', '--vary', 'faults[0].durationMs=1.5min,2min'),
      '--vary: faults[0].durationMs: expected a number, got "1.5min": durations are in milliseconds, so write 90000',
    );
    const file = scenarioFile('ttl-in-seconds.json', (s) => ((s.clients as Array<Record<string, unknown>>)[0]!.ttlMs = '10 s'));
    expectBadInput(await cli('run', file), `${file}: clients[0].ttlMs: expected a number, got "10 s": durations are in milliseconds, so write 10000`);
  });

  it('an unknown option or command', async () => {
    expect((await cli('run', 'pause-past-expiry', '--colour')).code).toBe(2);
    expect((await cli('frobnicate')).code).toBe(2);
  });

  it('check on something that is not a trace', async () => {
    const file = scenarioFile('not-a-trace.json', () => {});
    const r = await cli('check', file);
    expect(r.code).toBe(2);
    expect(r.err).toBe(`locklab: ${file}: schema: is required but missing (this is a scenario, not a trace: run it with \`locklab run\`)\n`);
  });

  it('check on a trace whose events go back in time', async () => {
    const out = join(dir, 'bent.json');
    await cli('run', 'pause-past-expiry', '--out', out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { events: Array<{ timeUs: number }> };
    doc.events[3]!.timeUs = 0;
    writeFileSync(out, JSON.stringify(doc));
    expectBadInput(await cli('check', out), `${out}: events[3].timeUs: goes back in time`);
  });

  it('check on a trace with one timestamp pushed late blames that event alone', async () => {
    const out = join(dir, 'late.json');
    await cli('run', 'pause-past-expiry', '--out', out);
    const doc = JSON.parse(readFileSync(out, 'utf8')) as { events: Array<{ timeUs: number }> };
    doc.events[5]!.timeUs = 99_000_000;
    writeFileSync(out, JSON.stringify(doc));
    const r = await cli('check', out);
    expect(r.code).toBe(2);
    expect(r.err.trim().split('\n')).toHaveLength(1);
    expect(r.err).toContain(`${out}: events[5].timeUs: is later than the events after it (99000000, then`);
  });
});

describe('locklab scenarios and help', () => {
  it('lists the built-in scenarios with a one-line summary', async () => {
    const r = await cli('scenarios');
    expect(r.code).toBe(0);
    for (const name of ['pause-past-expiry', 'crash-without-release', 'exists-then-set-race', 'release-by-plain-del'])
      expect(r.out).toMatch(new RegExp(`^${name} +redis +\\S`, 'm'));
    const json = JSON.parse((await cli('scenarios', '--json')).out) as Array<{ name: string }>;
    expect(json.map((s) => s.name)).toContain('pause-past-expiry');
  });

  it('prints a built-in scenario as a file to copy: it runs to the same trace, and its $schema finds the schema from where it is saved', async () => {
    const r = await cli('scenarios', 'pause-past-expiry');
    expect(r.code).toBe(0);
    const { $schema, ...copy } = JSON.parse(r.out) as Record<string, unknown>;
    const { $schema: _inRepository, ...builtin } = BUILTIN_SCENARIOS['pause-past-expiry'] as Record<string, unknown>;
    expect(copy).toEqual(builtin);
    // Saved in the folder the command ran in, its $schema names the repository's (or the installed package's) schema file.
    expect(readFileSync(resolve(process.cwd(), $schema as string), 'utf8')).toContain('"$schema": "http://json-schema.org/draft-07/schema#"');
    const file = join(dir, 'mine.json');
    writeFileSync(file, r.out);
    const [mine, original] = [await cli('run', file, '--json'), await cli('run', 'pause-past-expiry', '--json')];
    expect(runHash(JSON.parse(mine.out) as TraceDocument)).toBe(runHash(JSON.parse(original.out) as TraceDocument));

    const unknown = await cli('scenarios', 'pause-past-expiri');
    expect(unknown.code).toBe(2);
    expect(unknown.out).toBe('');
    expect(unknown.err).toMatch(/^locklab: pause-past-expiri: no built-in scenario of that name \(built-ins: pause-past-expiry, /);
  });

  it('has --help everywhere', async () => {
    for (const argv of [['--help'], ['run', '--help'], ['check', '--help'], ['scenarios', '--help']]) {
      const r = await cli(...argv);
      expect(r.code).toBe(0);
      expect(r.out).toContain('Usage: locklab');
    }
    expect((await cli('run', '--help')).out).toContain('Exit codes: 0 the run completed');
  });
});

describe('locklab stores', () => {
  it('prints the capability table, one row per store kind', async () => {
    const r = await cli('stores');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^store +scope +blocking +expiring +sharing +fencing token +hazard scenario/m);
    for (const row of STORE_TABLE) expect(r.out).toMatch(new RegExp(`^${row.name} +${row.scope} +(yes|no) `, 'm'));
  });

  it('--json prints an array of objects, one per store, each with a name', async () => {
    const rows = JSON.parse((await cli('stores', '--json')).out) as Array<Record<string, unknown>>;
    expect(rows.map((r) => r.name)).toEqual(STORE_KINDS.map((k) => k.kind));
    for (const r of rows)
      expect(Object.keys(r)).toEqual(
        expect.arrayContaining(['name', 'scope', 'blocking', 'expiring', 'sharing', 'fencingToken', 'losesLockWhen', 'hazardScenario']),
      );
  });
});

describe('the installed command', () => {
  // The compiled command, as the package ships it, is tested from the packed tarball (test/package.test.ts).
  it('runs through its entry script: exit codes and streams as documented', () => {
    const start = new URL('../sim/cli/start.ts', import.meta.url).pathname;
    const node = (...args: string[]) =>
      spawnSync(process.execPath, ['--import', 'tsx', start, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    const ok = node('run', 'crash-without-release');
    expect(ok.status).toBe(0);
    expect(ok.stdout).toContain('Verdict: SAFE');
    const bad = node('run', 'pause-past-expiry', '--seed', 'x');
    expect(bad.status).toBe(2);
    expect(bad.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('the header of a real run', () => {
  it('names each kind of server once, with its nodes when they are named otherwise', async () => {
    const { serversLine } = await import('../sim/cli/real.js');
    const { serverNeeds } = await import('../sim/real/nodes.js');
    const { normalizeScenario } = await import('../sim/scenario/normalize.js');
    const needs = (name: string): string => serversLine(serverNeeds(normalizeScenario(BUILTIN_SCENARIOS[name], name)));
    expect(needs('crash-without-release')).toBe('redis');
    expect(needs('redlock-clock-jump')).toBe('redis (A, B, C, D, E)');
    expect(
      serversLine([
        { server: 'redis', node: 'r1' },
        { server: 'postgresql', node: 'pg' },
        { server: 'redis', node: 'r2' },
      ]),
    ).toBe('redis (r1, r2); postgresql (pg)');
  });
});
