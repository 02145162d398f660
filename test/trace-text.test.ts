import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { runJob } from '../sim/run.js';
import { serializeTrace, traceTextPieces } from '../sim/trace/io.js';
import type { TraceDocument, TraceEvent } from '../sim/trace/types.js';
import { TRACE_SCHEMA } from '../sim/trace/types.js';

/*
 * A long trace is written a piece at a time (`locklab run --json`, --out):
 * the pieces, one after another, must be the document's one text, with one
 * event per line, wherever the pieces happen to be cut.
 */

const event = (seq: number): TraceEvent => ({ seq, timeUs: seq * 10, kind: 'client.start', actor: 'A', machine: 'm1' }) as TraceEvent;

describe('a trace written in pieces', () => {
  it('is the one text, event per line, for no events, one, and a cut at every place', () => {
    const doc = (n: number) =>
      ({
        schema: TRACE_SCHEMA,
        source: 'sim',
        seed: 1,
        events: Array.from({ length: n }, (_, i) => event(i)),
        verdict: { outcome: 'safe' },
      }) as unknown as TraceDocument;
    expect([...traceTextPieces(doc(0))].join('')).toBe(
      `{\n  "schema": "${TRACE_SCHEMA}",\n  "source": "sim",\n  "seed": 1,\n  "events": [],\n  "verdict": {"outcome":"safe"}\n}\n`,
    );
    const line = (i: number) => `    {"seq":${i},"timeUs":${i * 10},"kind":"client.start","actor":"A","machine":"m1"}`;
    expect([...traceTextPieces(doc(1))].join('')).toBe(
      `{\n  "schema": "${TRACE_SCHEMA}",\n  "source": "sim",\n  "seed": 1,\n  "events": [\n${line(0)}\n  ],\n  "verdict": {"outcome":"safe"}\n}\n`,
    );
    const seven = `{\n  "schema": "${TRACE_SCHEMA}",\n  "source": "sim",\n  "seed": 1,\n  "events": [\n${[0, 1, 2, 3, 4, 5, 6].map(line).join(',\n')}\n  ],\n  "verdict": {"outcome":"safe"}\n}\n`;
    for (const per of [1, 2, 3, 6, 7, 8]) {
      const pieces = [...traceTextPieces(doc(7), undefined, per)];
      expect(pieces.join(''), `${per} events a piece`).toBe(seven);
      // A piece for every `per` events, and one for what follows the last.
      expect(pieces, `${per} events a piece`).toHaveLength(Math.ceil(7 / per) + 1);
    }
  });

  it("writes a kept run's columns as its events read back, piece by piece", () => {
    const scenario = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
    const r = runJob(scenario, scenario.seed, { trace: true, hash: false });
    const kept = r.trace!;
    const doc = { schema: TRACE_SCHEMA, source: 'sim', scenario, seed: scenario.seed, stop: r.stop, events: [], verdict: r.verdict } as TraceDocument;
    const text = [...traceTextPieces(doc, kept, 5)].join('');
    expect(text).toBe(serializeTrace({ ...doc, events: kept.toArray() }));
    expect((JSON.parse(text) as TraceDocument).events).toHaveLength(kept.length);
    expect(text.split('\n').filter((l) => l.startsWith('    {"seq":'))).toHaveLength(kept.length);
  });
});
