import { afterAll, expect, it } from 'vitest';
import { runScenario } from '../../sim/run.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { applyOverrides, parseOverride } from '../../sim/scenario/set.js';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { findingsOf } from '../../sim/check/checker.js';
import type { Finding, Verdict } from '../../sim/check/verdict.js';
import { runHash } from '../../sim/trace/hash.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { Golden } from './golden.js';

export type Outcome = 'safe' | 'fenced' | 'unsafe';

/** A built-in run (a scenario and `--set` overrides) with the outcome it must have. */
export interface Pinned {
  readonly name: string;
  readonly sets: readonly string[];
  readonly outcome: Outcome;
}

/** Runs a built-in scenario with overrides, at its own seed unless one is given. */
export function runBuiltin(name: string, sets: readonly string[] = [], seed?: number): TraceDocument {
  const scenario = applyOverrides(normalizeScenario(BUILTIN_SCENARIOS[name], name), sets.map(parseOverride));
  return runScenario(scenario, seed ?? scenario.seed);
}

/** The command that reproduces a run, for failure messages (TigerBeetle's VOPR habit). */
export function reproduce(name: string, sets: readonly string[], seed: number): string {
  return `Reproduce: locklab run ${name} --seed ${seed}${sets.map((s) => ` --set ${s}`).join('')}`;
}

/** A finding in one line, for pins and failure messages: what, who, when, and the events it points at. */
export function findingLine(f: Finding): string {
  const at = `seqs ${f.seqs.join(',')}`;
  switch (f.invariant) {
    case 'double-ownership':
      return `double-ownership ${f.clients.join('+')} on ${f.key} ${f.fromUs}..${f.toUs} us, ${at}`;
    case 'lost-lock':
      return `lost-lock ${f.owner} on ${f.key} ${f.how} at ${f.atUs} us, ${at}`;
    case 'stale-write':
      return `stale-write ${f.owner} token ${f.fence ?? 'none'} ${f.accepted ? 'accepted' : 'rejected'} at ${f.timeUs} us (${f.cause.kind}), ${at}`;
    case 'refused-holder':
      return `refused-holder ${f.owner} at ${f.timeUs} us, ${at}`;
    case 'unprotected-write':
      return `unprotected-write ${f.owner} token ${f.fence ?? 'none'} at ${f.timeUs} us (${f.how}), ${at}`;
  }
}

export function findingLines(v: Verdict): string[] {
  return findingsOf(v).map(findingLine);
}

/**
 * One test per pinned run: it completes, has its outcome, hashes the same
 * twice, and matches the run hash and findings kept in `goldenFile` (written
 * locally when missing, a failure under CI). The verdict's sentences are not
 * pinned: rewording one breaks nothing, while a change of behaviour breaks
 * exactly the pins whose runs it changes.
 */
export function pinOutcomes(goldenFile: URL, pinned: readonly Pinned[]): void {
  const golden = new Golden<{ runHash: string; outcome: string; findings: string[] }>(goldenFile.pathname);
  afterAll(() => golden.save());
  for (const p of pinned) {
    const label = [p.name, ...p.sets].join(' ');
    it(`${label} is ${p.outcome}, with a pinned trace hash`, () => {
      const doc = runBuiltin(p.name, p.sets);
      const hint = reproduce(p.name, p.sets, doc.seed);
      expect(doc.stop.reason, hint).toBe('completed');
      expect(doc.verdict.outcome, hint).toBe(p.outcome);
      const hash = runHash(doc);
      expect(runHash(runBuiltin(p.name, p.sets)), `the same run hashed twice differs. ${hint}`).toBe(hash);
      golden.expect(label, { runHash: hash, outcome: doc.verdict.outcome, findings: findingLines(doc.verdict) }, hint);
    });
  }
}
