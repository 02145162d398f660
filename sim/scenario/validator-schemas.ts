import { STORE_KINDS } from '../stores/registry.js';
import { scenarioSchema, storeDefinition } from './schema.js';

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
 * The trace schema
 * (`locklab check`, the lab's file import) is still compiled on first use:
 * precompiled, it came to 3 MB more.
 */

/** Every schema that is validated with every error reported (Ajv's allErrors and verbose), by export name. */
export function fullSchemas(): Record<string, Record<string, unknown>> {
  return { scenario: scenarioSchema() as Record<string, unknown> };
}

/** The validators exported beside the full schemas, each a definition of one of them: export name to the ref Ajv compiles. */
export function definitionExports(): Record<string, string> {
  return Object.fromEntries(STORE_KINDS.map((k) => [storeDefinition(k.kind), `scenario#/definitions/${storeDefinition(k.kind)}`]));
}
