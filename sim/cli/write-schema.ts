// `npm run schema`: writes the published scenario schema from its parts in sim/.
import { writeFileSync } from 'node:fs';
import { scenarioSchema } from '../scenario/schema.js';
import { traceSchema } from '../trace/schema.js';

export const SCENARIO_SCHEMA_FILE = new URL('../../docs/schema/scenario.schema.json', import.meta.url);
export const TRACE_SCHEMA_FILE = new URL('../../docs/schema/trace.schema.json', import.meta.url);

export function renderScenarioSchema(): string {
  return `${JSON.stringify(scenarioSchema(), null, 2)}\n`;
}

export function renderTraceSchema(): string {
  return `${JSON.stringify(traceSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/sim\//, 'sim/'))) {
  writeFileSync(SCENARIO_SCHEMA_FILE, renderScenarioSchema());
  writeFileSync(TRACE_SCHEMA_FILE, renderTraceSchema());
  process.stdout.write(`wrote ${SCENARIO_SCHEMA_FILE.pathname} and ${TRACE_SCHEMA_FILE.pathname}\n`);
}
