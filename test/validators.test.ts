import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  renderTraceValidators,
  renderTraceValidatorTypes,
  renderValidators,
  renderValidatorTypes,
  TRACE_VALIDATORS_FILE,
  TRACE_VALIDATORS_TYPES_FILE,
  VALIDATORS_FILE,
  VALIDATORS_TYPES_FILE,
} from '../sim/cli/write-validators.js';
import { compileListSchema, compileSchema } from '../sim/scenario/schema-check.js';
import { checkWith } from '../sim/scenario/schema-issues.js';
import type { ValidateFunction } from 'ajv';
import { scenarioSchema, storeDefinition } from '../sim/scenario/schema.js';
import * as precompiledAll from '../sim/scenario/validators.generated.js';
import { scenario as precompiled } from '../sim/scenario/validators.generated.js';
import { STORE_KINDS } from '../sim/stores/registry.js';
import { InputError } from '../sim/errors.js';
import { runScenario } from '../sim/run.js';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { traceSchema } from '../sim/trace/schema.js';
import { validateTrace } from '../sim/trace/validate.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';

describe('precompiled validators', () => {
  it('the generated file is what `npm run validators` writes from the current schemas', () => {
    expect(readFileSync(VALIDATORS_FILE, 'utf8'), 'run `npm run validators`').toBe(renderValidators());
    expect(readFileSync(VALIDATORS_TYPES_FILE, 'utf8'), 'run `npm run validators`').toBe(renderValidatorTypes());
    expect(readFileSync(TRACE_VALIDATORS_FILE, 'utf8'), 'run `npm run validators`').toBe(renderTraceValidators());
    expect(readFileSync(TRACE_VALIDATORS_TYPES_FILE, 'utf8'), 'run `npm run validators`').toBe(renderTraceValidatorTypes());
  });

  it('the generated modules are plain ESM: they import and require nothing', () => {
    for (const file of [VALIDATORS_FILE, TRACE_VALIDATORS_FILE]) {
      const text = readFileSync(file, 'utf8').replace(/"(?:[^"\\]|\\.)*"/g, '""');
      expect(text).not.toMatch(/\brequire\(/);
      expect(text).not.toMatch(/^import /m);
    }
  });

  it('reports the same issues as the schema compiled at run time, for good and bad scenarios alike', () => {
    const compiled = compileSchema(scenarioSchema());
    const fast = checkWith(precompiled, scenarioSchema());
    const base = BUILTIN_SCENARIOS['pause-past-expiry'] as Record<string, unknown>;
    const bad: unknown[] = [
      base,
      ...Object.values(BUILTIN_SCENARIOS),
      {},
      [],
      'scenario',
      { ...base, machines: 'app1' },
      { ...base, store: { kind: 'cassandra', machine: 'db' } },
      { ...base, clients: [{ name: 'A', machine: 'app1', ttlMs: -1, colour: 'red' }] },
      { ...base, faults: [{ kind: 'pause', atMs: 'soon' }, { kind: 'meteor' }] },
      { ...base, clients: [{ name: 'A', machine: 'app1', steps: [{ step: 'dance' }, { step: 'work', durationMs: 'x' }] }] },
      { ...base, name: 'x'.repeat(3000), seed: 1.5 },
    ];
    for (const doc of bad) expect(fast(doc), JSON.stringify(doc).slice(0, 80)).toEqual(compiled(doc));
    expect(fast({ ...base, machines: 'app1' }).length).toBeGreaterThan(0);
  });

  it("reports, for each store kind's own schema (a deploy's patch), the issues of that schema compiled at run time", () => {
    let bad = 0;
    for (const k of STORE_KINDS) {
      const compiled = compileSchema({ ...k.schema, definitions: scenarioSchema().definitions });
      const fast = checkWith((precompiledAll as unknown as Record<string, ValidateFunction>)[storeDefinition(k.kind)]!, scenarioSchema());
      const props = Object.keys((k.schema as { properties: object }).properties);
      const docs: unknown[] = [
        { kind: k.kind, machine: 'db' },
        { kind: k.kind, machine: 5 },
        { kind: k.kind, colour: 'red' },
        { kind: 'cassandra' },
        'redis',
        Object.fromEntries(props.map((p) => [p, p === 'kind' ? k.kind : { wrong: true }])),
        Object.fromEntries(props.map((p) => [p, p === 'kind' ? k.kind : -1])),
      ];
      for (const doc of docs) {
        expect(fast(doc), `${k.kind}: ${JSON.stringify(doc).slice(0, 80)}`).toEqual(compiled(doc));
        if (compiled(doc).length > 0) bad++;
      }
    }
    expect(bad).toBeGreaterThan(5 * STORE_KINDS.length);
  });

  it('checks traces as the trace schema compiled at run time does, bad events past those listed counted', () => {
    const compiled = compileListSchema(traceSchema(), 'events');
    const good = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'p'));
    const event = good.events[4]!;
    const bad: unknown[] = [
      good,
      { ...good, seed: -1, source: 'simulated' },
      { ...good, stop: { reason: 'bored' } },
      { ...good, events: [{ ...event, kind: 'lock.stolen' }, { ...event, timeUs: 'later' }, { ...event, believes: { holds: 'yes' } }, { seq: 0 }] },
      // More bad events than are listed: the rest are counted, by the quick validator.
      { ...good, events: Array.from({ length: 40 }, (_, i) => ({ ...event, seq: i, machine: 7 })) },
    ];
    for (const doc of bad) {
      const runtime = compiled(doc);
      let precompiled: { issues: readonly unknown[]; more: number };
      try {
        validateTrace(structuredClone(doc), 't');
        precompiled = { issues: [], more: 0 };
      } catch (err) {
        const e = err as InputError;
        precompiled = { issues: e.issues, more: e.more };
      }
      if (runtime.issues.length > 0) expect(precompiled, JSON.stringify(doc).slice(0, 80)).toEqual(runtime);
      else expect(precompiled.issues).toEqual([]);
    }
    expect(compiled(bad[4]).more).toBeGreaterThan(0);
  });
});
