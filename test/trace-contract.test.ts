import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { check, Checker } from '../sim/check/checker.js';
import { deriveIntervals } from '../sim/check/intervals.js';
import { runJob, runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { canonicalJson, portableSha256, runHash } from '../sim/trace/hash.js';
import { serializeTrace } from '../sim/trace/io.js';
import { validateTrace } from '../sim/trace/validate.js';
import { EVENT_KINDS, kindSpec } from '../sim/trace/kinds.js';
import { traceSchema } from '../sim/trace/schema.js';
import type { TraceDocument, TraceEvent } from '../sim/trace/types.js';
import { builtinRuns, builtinVariant } from './support/builtin-variants.js';
import { randomScenario } from './support/random-scenario.js';
import { referenceCheck } from './support/reference-checker.js';

const root = new URL('..', import.meta.url).pathname;

/** The findings the oracle and the streaming checker both state, without addresses or sentences. */
function comparable(v: ReturnType<typeof check>) {
  return {
    outcome: v.outcome,
    doubleOwnership: v.doubleOwnership.map(({ key, fromUs, toUs, clients, owners }) => ({ key, fromUs, toUs, clients, owners })),
    staleWrites: v.staleWrites.map(({ seq, timeUs, client, owner, fence, accepted }) => ({ seq, timeUs, client, owner, fence, accepted })),
    lostLocks: v.lostLocks.map(({ key, client, owner, atUs, how, reason }) => ({ key, client, owner, atUs, how, reason })),
    rejectedCurrent: v.refusedHolders.length,
    unprotectedWrites: v.unprotectedWrites.length,
  };
}
function oracle(events: TraceDocument['events']) {
  const r = referenceCheck(events);
  return { ...r, staleWrites: r.staleWrites.map(({ seq, timeUs, client, owner, fence, accepted }) => ({ seq, timeUs, client, owner, fence, accepted })) };
}

describe('the trace contract', () => {
  it('the published trace schema is the one generated from the event-kind registry (run `npm run schema` after changing kinds)', () => {
    const published = JSON.parse(readFileSync(`${root}docs/schema/trace.schema.json`, 'utf8')) as unknown;
    expect(published).toEqual(traceSchema());
  });

  it('every trace of every built-in run validates against the schema, and uses only registered kinds with their required fields', () => {
    for (const { label, scenario } of builtinRuns()) {
      for (const fencing of [false, true]) {
        const doc = runScenario({ ...scenario, resource: { ...scenario.resource, fencing } });
        expect(() => validateTrace(JSON.parse(serializeTrace(doc)), label), label).not.toThrow();
        for (const e of doc.events) {
          const spec = kindSpec(e.kind);
          expect(spec, `${label}: events[${e.seq}] has unregistered kind ${e.kind}`).toBeDefined();
          for (const f of spec!.required) expect(e[f], `${label}: events[${e.seq}] ${e.kind} lacks ${f}`).toBeDefined();
        }
      }
    }
  });

  it('random scenarios write traces that validate against the schema', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          randomScenario.map((raw) => normalizeScenario(raw, 'random')),
          builtinVariant.map((v) => v.scenario),
        ),
        (scenario) => {
          const doc = runScenario(scenario);
          validateTrace(JSON.parse(serializeTrace(doc)), 'random');
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a trace whose write lacks its owner is refused by validation and by the checker, never judged safe', () => {
    const doc = runScenario(normalizeScenario(builtinRuns()[0]!.scenario, 'x'));
    const bad = structuredClone(doc);
    const write = bad.events.find((e) => e.kind === 'write.accepted')!;
    delete write.owner;
    expect(() => validateTrace(JSON.parse(serializeTrace(bad)), 'bad.json')).toThrow(`events[${write.seq}].owner`);
    expect(() => check(bad.events)).toThrow(`events[${write.seq}].owner`);
  });

  it('a belief that holds without an owner is refused by the checker', () => {
    const doc = runScenario(normalizeScenario(builtinRuns()[0]!.scenario, 'x'));
    const bad = structuredClone(doc);
    const e = bad.events.find((x) => x.believes?.holds === true)!;
    bad.events[e.seq] = { ...e, believes: { holds: true } };
    expect(() => check(bad.events)).toThrow(`events[${e.seq}].believes.owner`);
    expect(() => validateTrace(JSON.parse(serializeTrace(bad)), 'bad.json')).toThrow(`events[${e.seq}].believes.owner`);
  });

  it('every registered kind says who records it, and failures say whether they definitely did not happen or may have', () => {
    for (const [kind, spec] of Object.entries(EVENT_KINDS)) {
      expect(['client', 'store', 'resource', 'net', 'faults']).toContain(spec.actor);
      if (kind.endsWith('.timeout')) expect((spec as { failure?: string }).failure, kind).toBe('maybe');
      if (kind.endsWith('.error')) expect((spec as { failure?: string }).failure, kind).toBe('definite');
    }
  });
});

describe('the run hash', () => {
  it('covers the run alone: the stored verdict and the stop counters do not change it, any event does', () => {
    const doc = runScenario(builtinRuns()[0]!.scenario);
    const h = runHash(doc);
    const reworded: TraceDocument = { ...doc, verdict: { ...doc.verdict, outcome: 'safe' } };
    expect(runHash(reworded)).toBe(h);
    expect(runHash({ ...doc, stop: { ...doc.stop, events: doc.stop.events + 1 } } as TraceDocument)).toBe(h);
    const moved = structuredClone(doc);
    moved.events[3]!.timeUs += 1;
    expect(runHash(moved)).not.toBe(h);
    expect(runHash({ ...doc, seed: doc.seed + 1 })).not.toBe(h);
  });

  it('does not depend on the key order of a trace read from a file', () => {
    const doc = runScenario(builtinRuns()[1]!.scenario);
    const shuffled = JSON.parse(
      JSON.stringify(doc, (_k, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).reverse()) : v)),
    ) as TraceDocument;
    expect(runHash(shuffled)).toBe(runHash(doc));
  });

  it('canonical JSON sorts keys at every depth and leaves arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [3, { z: 1, y: 2 }], c: 'x' } })).toBe('{"a":{"c":"x","d":[3,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson({ u: undefined, e: [undefined, 'é\n"'], n: null })).toBe('{"e":[null,"é\\n\\""],"n":null}');
  });

  it('hashes each event as the general canonical JSON writes it, hand-written beliefs and strings that need escaping included', () => {
    // The run hash by its definition: a header line, then one line of canonical JSON per event, each ending in a newline.
    const byDefinition = (doc: TraceDocument): string => {
      const h = portableSha256();
      h.update(`${canonicalJson({ schema: doc.schema, source: doc.source, scenario: doc.scenario, seed: doc.seed })}\n`);
      for (const e of doc.events) h.update(`${canonicalJson(e)}\n`);
      return h.digestHex();
    };
    for (const { label, scenario } of builtinRuns()) {
      const doc = runScenario(scenario);
      expect(runHash(doc), label).toBe(byDefinition(doc));
    }
    const doc = runScenario(builtinRuns()[0]!.scenario);
    const odd: TraceDocument = {
      ...doc,
      events: doc.events.map((e, i) => {
        const believes = [
          { holds: true, owner: 'A:1', extra: 'x' },
          { owner: 'A:1', fence: 3 },
          { holds: false, shared: undefined, ttlLeftUs: -5 },
          { ttlLeftUs: 2, holds: true, fence: 1, owner: 'é"\\', shared: true },
        ][i % 5];
        return { ...e, actor: i === 2 ? 'q"uote\u2028' : e.actor, ...(believes === undefined ? {} : { believes }) } as TraceEvent;
      }),
    };
    expect(runHash(odd)).toBe(byDefinition(odd));
  });
});

describe('the streaming checker and the run job', () => {
  it('reaches the same findings as the batch oracle on every built-in run and hundreds of random ones', () => {
    for (const { label, scenario } of builtinRuns()) {
      const doc = runScenario(scenario);
      expect(comparable(check(doc.events)), label).toEqual(oracle(doc.events));
    }
    fc.assert(
      fc.property(
        fc.oneof(
          randomScenario.map((raw) => ({ label: JSON.stringify(raw), scenario: normalizeScenario(raw, 'random') })),
          builtinVariant,
        ),
        ({ label, scenario }) => {
          const doc = runScenario(scenario);
          expect(comparable(check(doc.events)), label).toEqual(oracle(doc.events));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('fed events one at a time, or all at once, gives the same verdict', () => {
    fc.assert(
      fc.property(builtinVariant, ({ scenario }) => {
        const doc = runScenario(scenario);
        const c = new Checker();
        for (const e of doc.events) c.push(e);
        expect(c.finish()).toEqual(check(doc.events));
      }),
      { numRuns: 50 },
    );
  });

  it('runJob without the trace gives the run hash, outcome and findings of the kept trace, and keeps no events', () => {
    fc.assert(
      fc.property(builtinVariant, ({ scenario }) => {
        const doc = runScenario(scenario);
        const job = runJob(scenario, scenario.seed);
        expect(job.events).toBeUndefined();
        expect(job.runHash).toBe(runHash(doc));
        expect(job.verdict).toEqual(check(doc.events));
        expect(job.stop).toEqual(doc.stop);
        expect(job.eventCount).toBe(doc.events.length);
      }),
      { numRuns: 60 },
    );
  });

  it('the derived intervals of a redlock run follow the quorum: the holding ends when a majority no longer holds', () => {
    const run = builtinRuns().find((r) => r.label === 'redlock-clock-jump')!;
    const doc = runScenario(run.scenario);
    const iv = deriveIntervals(doc.events);
    const lost = doc.verdict.lostLocks[0]!;
    const h = iv.holdings.find((x) => x.owner === lost.owner)!;
    expect(h.endUs).toBe(lost.atUs);
    // Its nodes' own holdings outlive it: only the majority counts.
    expect(iv.nodeHoldings.filter((n) => n.owner === lost.owner).some((n) => (n.endUs ?? Infinity) > lost.atUs)).toBe(true);
  });
});
