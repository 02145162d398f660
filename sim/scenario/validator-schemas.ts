import { scenarioSchema } from './schema.js';

/*
 * The schemas Locklab validates input with, each under the name its
 * precompiled validator is exported as (sim/scenario/validators.generated.js,
 * written by `npm run validators`, and by `npm run build:lib`). Compiling the
 * scenario schema with Ajv took about a third of `locklab run`'s start-up;
 * the generated code is plain functions, loaded like any module (380 kB).
 * The trace schema (`locklab check`, the lab's file import) and a store's
 * own schema (checked when a deploy patches its settings) are still compiled
 * on first use: precompiled, each carries the scenario's definitions again,
 * and the two came to 3 MB more.
 */

/** Every schema that is validated with every error reported (Ajv's allErrors and verbose), by export name. */
export function fullSchemas(): Record<string, Record<string, unknown>> {
  return { scenario: scenarioSchema() as Record<string, unknown> };
}
