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
  return [...traceTextPieces(doc, events)].join('');
}

/**
 * The text of `serializeTrace`, in pieces of `eventsPerPiece` events each
 * (the first piece also holds what comes before the events, the last what
 * comes after them), each made when it is asked for: a long trace can be
 * measured, then written, a piece at a time, and is never held as one
 * string, nor as a string for each of its events.
 */
export function* traceTextPieces(doc: TraceDocument, events: Iterable<TraceEvent> = doc.events, eventsPerPiece = 4096): Generator<string, void, undefined> {
  // What is not yet in a piece: the document's opening and its fields before the events, then what follows the last event.
  let text = '{\n';
  let fields = 0;
  for (const k of TOP_LEVEL) {
    if (doc[k] === undefined) continue;
    if (fields++ > 0) text += ',\n';
    if (k !== 'events') {
      text += `  ${JSON.stringify(k)}: ${JSON.stringify(doc[k])}`;
      continue;
    }
    text += '  "events": [';
    let lines: string[] = [];
    let written = 0;
    // The lines not yet written, after what is pending before them, as one piece.
    const piece = (): string => {
      const p = `${text}${written === 0 ? '\n' : ',\n'}${lines.join(',\n')}`;
      written += lines.length;
      text = '';
      lines = [];
      return p;
    };
    for (const e of events) {
      lines.push(`    ${JSON.stringify(e)}`);
      if (lines.length === eventsPerPiece) yield piece();
    }
    if (lines.length > 0) yield piece();
    text += written === 0 ? ']' : '\n  ]';
  }
  yield `${text}\n}\n`;
}

/** The run's fingerprint: the run hash (sim/trace/hash.ts), which leaves the derived verdict out. */
export function traceHash(doc: TraceDocument): string {
  return runHash(doc);
}
