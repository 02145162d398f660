import { runHash } from './hash.js';
import type { TraceDocument, TraceEvent } from './types.js';

const TOP_LEVEL = ['schema', 'source', 'scenario', 'seed', 'stop', 'partial', 'events', 'verdict'] as const;

/**
 * Writes a trace as JSON with one event per line: valid JSON, readable in a
 * diff, and the same bytes for the same run on every engine. `events`, when
 * given, stands for `doc.events`: a run's kept trace (sim/trace/kept.ts) is
 * written event by event, without making every event an object at once.
 */
export function serializeTrace(doc: TraceDocument, events: Iterable<TraceEvent> = doc.events): string {
  const parts = TOP_LEVEL.filter((k) => doc[k as keyof TraceDocument] !== undefined).map((k) => {
    if (k === 'events') {
      const lines: string[] = [];
      for (const e of events) lines.push(`    ${JSON.stringify(e)}`);
      return `  "events": [${lines.length === 0 ? '' : `\n${lines.join(',\n')}\n  `}]`;
    }
    return `  ${JSON.stringify(k)}: ${JSON.stringify(doc[k as keyof TraceDocument])}`;
  });
  return `{\n${parts.join(',\n')}\n}\n`;
}

/** The run's fingerprint: the run hash (sim/trace/hash.ts), which leaves the derived verdict out. */
export function traceHash(doc: TraceDocument): string {
  return runHash(doc);
}
