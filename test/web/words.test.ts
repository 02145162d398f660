import { describe, expect, it } from 'vitest';
import { scenarioSchema } from '../../sim/scenario/schema.js';
import { STORE_KINDS } from '../../sim/stores/registry.js';
import { FAULT_FIELDS, FAULT_NAMES, faultName, STORE_FIELDS } from '../../web/sandbox/words.js';

/* Every setting and fault a store model declares reaches the Sandbox in words, as the models grow. */

/** Field names whose spelled-out form is already plain words. */
const PLAIN = new Set(['kind', 'keyPrefix', 'nodes', 'stores']);

describe('the sandbox’s words', () => {
  it('every store kind’s settings have words of the lab’s, or a name that is plain when spelled out', () => {
    const bare: string[] = [];
    for (const k of STORE_KINDS)
      for (const field of Object.keys((k.schema as { properties?: object }).properties ?? {}))
        if (!PLAIN.has(field) && STORE_FIELDS[field] === undefined) bare.push(`${k.kind}.${field}`);
    expect(bare).toEqual([]);
  });

  it('every fault kind a store offers has a name, and every fault field words', () => {
    const kinds = new Set(STORE_KINDS.flatMap((k) => k.faults));
    for (const kind of kinds) expect(FAULT_NAMES[kind], kind).toBe(faultName(kind));
    const defs = (scenarioSchema() as { definitions: Record<string, { properties?: object }> }).definitions;
    const bare = Object.entries(defs)
      .filter(([name]) => name.endsWith('Fault'))
      .flatMap(([name, d]) => Object.keys(d.properties ?? {}).map((f) => [name, f] as const))
      .filter(([, f]) => f !== 'kind' && FAULT_FIELDS[f] === undefined);
    expect(bare).toEqual([]);
  });
});
