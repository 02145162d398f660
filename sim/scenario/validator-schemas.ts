import { STORE_KINDS } from '../stores/registry.js';
import { traceSchema } from '../trace/schema.js';
import { scenarioSchema, storeDefinition } from './schema.js';
import { listParts } from './schema-issues.js';

/*
 * The schemas Locklab validates input with, each under the name its
 * precompiled validator is exported as (sim/scenario/validators.generated.js,
 * written by `npm run validators`, and by `npm run build:lib`). Compiling the
 * scenario schema with Ajv took about a third of `locklab run`'s start-up;
 * the generated code is plain functions, loaded like any module, and a run
 * does not load Ajv at all. Each store kind's own schema (checked when a
 * deploy patches the store's settings) is exported too, as the scenario's
 * definition of it: compiled within the same schema, the thirteen store exports
 * add 93 kB, where each compiled on its own carried every definition again.
 * The trace schema's two parts (see `listParts`) are written to a module of
 * their own (sim/trace/validators.generated.js, 1.8 MB), which only what
 * reads traces loads: compiled at run time, they made `locklab check` of a
 * 32-event trace take 3 s.
 */

/** Every schema that is validated with every error reported (Ajv's allErrors and verbose), by export name. */
export function fullSchemas(): Record<string, Record<string, unknown>> {
  return { scenario: scenarioSchema() as Record<string, unknown> };
}

/** The trace's validators, by export name: the document without its events, and one event. */
export function traceSchemas(): Record<string, Record<string, unknown>> {
  const { outer, item } = listParts(traceSchema(), 'events');
  return { traceOuter: outer, traceEvent: item };
}

/** The validators exported beside the full schemas, each a definition of one of them: export name to the ref Ajv compiles. */
export function definitionExports(): Record<string, string> {
  return Object.fromEntries(STORE_KINDS.map((k) => [storeDefinition(k.kind), `scenario#/definitions/${storeDefinition(k.kind)}`]));
}
