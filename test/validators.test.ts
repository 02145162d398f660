import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderValidators, renderValidatorTypes, VALIDATORS_FILE, VALIDATORS_TYPES_FILE } from '../sim/cli/write-validators.js';
import { compileSchema } from '../sim/scenario/schema-check.js';
import { checkWith } from '../sim/scenario/schema-issues.js';
import type { ValidateFunction } from 'ajv';
import { scenarioSchema, storeDefinition } from '../sim/scenario/schema.js';
import * as precompiledAll from '../sim/scenario/validators.generated.js';
import { scenario as precompiled } from '../sim/scenario/validators.generated.js';
import { STORE_KINDS } from '../sim/stores/registry.js';
import { BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';

describe('precompiled validators', () => {
  it('the generated file is what `npm run validators` writes from the current schemas', () => {
    expect(readFileSync(VALIDATORS_FILE, 'utf8'), 'run `npm run validators`').toBe(renderValidators());
    expect(readFileSync(VALIDATORS_TYPES_FILE, 'utf8'), 'run `npm run validators`').toBe(renderValidatorTypes());
  });

  it('the generated module is plain ESM: it imports and requires nothing', () => {
    const text = readFileSync(VALIDATORS_FILE, 'utf8').replace(/"(?:[^"\\]|\\.)*"/g, '""');
    expect(text).not.toMatch(/\brequire\(/);
    expect(text).not.toMatch(/^import /m);
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
});
