import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderKindsTable, renderScenarioSchema, renderTraceSchema, SCENARIO_SCHEMA_FILE, TRACE_DOC_FILE, TRACE_SCHEMA_FILE } from '../sim/cli/write-schema.js';
import { STORE_KINDS } from '../sim/stores/registry.js';
import { scenarioSchema } from '../sim/scenario/schema.js';

describe('published schemas', () => {
  it('docs/schema/scenario.schema.json is the schema the code validates with (run `npm run schema` after a change)', () => {
    expect(readFileSync(SCENARIO_SCHEMA_FILE, 'utf8')).toBe(renderScenarioSchema());
  });

  it('docs/schema/trace.schema.json is generated from the event-kind registry (run `npm run schema` after a change)', () => {
    expect(readFileSync(TRACE_SCHEMA_FILE, 'utf8')).toBe(renderTraceSchema());
  });

  it("docs/trace.md's table of event kinds is the registry's (run `npm run schema` after a change)", () => {
    // Compared cell by cell: the formatter pads the table's columns.
    const cells = (table: string) =>
      table
        .split('\n')
        .filter((l) => l.startsWith('| `'))
        .map((l) => l.split(' | ').map((c) => c.replace(/^\|/, '').replace(/\|$/, '').trim()));
    const doc = readFileSync(TRACE_DOC_FILE, 'utf8');
    const section = doc.slice(doc.indexOf('<!-- kinds:start -->'), doc.indexOf('<!-- kinds:end -->'));
    expect(cells(section)).toEqual(cells(renderKindsTable()));
    expect(cells(section).length).toBeGreaterThan(50);
  });

  it('has one store branch per registered store kind, each with its kind as a constant', () => {
    const defs = scenarioSchema().definitions as Record<string, { properties?: { kind?: { const?: string } } }>;
    const kinds = Object.values(defs)
      .map((d) => d.properties?.kind?.const)
      .filter((k): k is string => k !== undefined && STORE_KINDS.some((s) => s.kind === k));
    expect(kinds.sort()).toEqual(STORE_KINDS.map((k) => k.kind).sort());
  });
});
