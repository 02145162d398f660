import type { Scenario } from '../scenario/types.js';

/** A scenario as a file people read and `locklab run` takes: two-space JSON and a final newline. */
export function serializeScenario(s: Scenario): string {
  return `${JSON.stringify(s, null, 2)}\n`;
}
