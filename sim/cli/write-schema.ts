// `npm run schema`: writes the published scenario schema from its parts in sim/.
import { scenarioSchema } from '../scenario/schema.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { EVENT_KINDS, type KindSpec } from '../trace/kinds.js';
import { traceSchema } from '../trace/schema.js';

export const SCENARIO_SCHEMA_FILE = new URL('../../docs/schema/scenario.schema.json', import.meta.url);
export const TRACE_SCHEMA_FILE = new URL('../../docs/schema/trace.schema.json', import.meta.url);

export function renderScenarioSchema(): string {
  return `${JSON.stringify(scenarioSchema(), null, 2)}\n`;
}

export const TRACE_DOC_FILE = new URL('../../docs/trace.md', import.meta.url);

const ACTORS: Record<KindSpec['actor'], string> = { client: 'client', store: 'store node', resource: '`resource`', net: '`net`', faults: '`faults`' };

/** The event-kind table of docs/trace.md, from the registry. */
export function renderKindsTable(): string {
  const rows = Object.entries(EVENT_KINDS as Readonly<Record<string, KindSpec>>).map(([kind, k]) => {
    const fields = [...k.required.map((f) => `\`${f}\``), ...Object.keys(k.data ?? {}).map((d) => `\`data.${d}\``)].join(', ');
    const effect = [
      k.startsHolding === true ? 'starts a holding' : '',
      k.endsHolding !== undefined ? `ends a holding (${k.endsHolding})` : '',
      k.endsBelief === true ? 'ends the belief' : '',
      k.failure !== undefined ? `${k.failure} failure` : '',
    ]
      .filter((x) => x !== '')
      .join('; ');
    return `| \`${kind}\` | ${ACTORS[k.actor]} | ${fields} | ${effect} | ${k.doc} |`;
  });
  return ['| kind | recorded by | always carries | effect | meaning |', '| --- | --- | --- | --- | --- |', ...rows].join('\n');
}

/** docs/trace.md with its kinds table replaced by the current one. */
export function renderTraceDoc(current: string): string {
  return current.replace(/<!-- kinds:start -->[\s\S]*<!-- kinds:end -->/, `<!-- kinds:start -->\n\n${renderKindsTable()}\n\n<!-- kinds:end -->`);
}

export function renderTraceSchema(): string {
  return `${JSON.stringify(traceSchema(), null, 2)}\n`;
}

if (process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/sim\//, 'sim/'))) {
  writeFileSync(SCENARIO_SCHEMA_FILE, renderScenarioSchema());
  writeFileSync(TRACE_SCHEMA_FILE, renderTraceSchema());
  writeFileSync(TRACE_DOC_FILE, renderTraceDoc(readFileSync(TRACE_DOC_FILE, 'utf8')));
  process.stdout.write(`wrote ${SCENARIO_SCHEMA_FILE.pathname} and ${TRACE_SCHEMA_FILE.pathname}\n`);
}
