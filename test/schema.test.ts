import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderScenarioSchema, SCENARIO_SCHEMA_FILE } from '../sim/cli/write-schema.js';
import { STORE_KINDS } from '../sim/stores/registry.js';
import { scenarioSchema } from '../sim/scenario/schema.js';

describe('published schemas', () => {
  it('docs/schema/scenario.schema.json is the schema the code validates with (run `npm run schema` after a change)', () => {
    expect(readFileSync(SCENARIO_SCHEMA_FILE, 'utf8')).toBe(renderScenarioSchema());
  });

  it('has one store branch per registered store kind, each with its kind as a constant', () => {
    const defs = scenarioSchema().definitions as Record<string, { properties?: { kind?: { const?: string } } }>;
    const kinds = Object.values(defs)
      .map((d) => d.properties?.kind?.const)
      .filter((k): k is string => k !== undefined && STORE_KINDS.some((s) => s.kind === k));
    expect(kinds.sort()).toEqual(STORE_KINDS.map((k) => k.kind).sort());
  });
});
