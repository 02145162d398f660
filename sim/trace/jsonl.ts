import type { Verdict } from '../check/verdict.js';
import { capVerdict } from '../check/checker.js';
import type { Scenario } from '../scenario/types.js';
import { TRACE_SCHEMA, type StopInfo, type TraceEvent } from './types.js';

/*
 * A trace as JSON Lines, for runs too long to hold as one document: a first
 * line with what the run is (schema, source, scenario, seed), then one line
 * per event exactly as the trace document writes it, then a last line with
 * how it stopped and its verdict. Written as the run goes, so memory does not
 * grow with the run's length.
 */

/** The first line: the trace document's head, without its events. */
export function jsonlHead(scenario: Scenario, seed: number): string {
  return `${JSON.stringify({ schema: TRACE_SCHEMA, source: 'sim', scenario, seed })}\n`;
}

/** The last line: how the run stopped, and its verdict. */
export function jsonlTail(stop: StopInfo, verdict: Verdict): string {
  return `${JSON.stringify({ stop, verdict: capVerdict(verdict) })}\n`;
}

/** How many characters of lines are gathered before they are handed on: one write per chunk, not per event. */
const CHUNK_CHARS = 1 << 16;

/** Gathers event lines into chunks and hands each chunk to `write`, so a long run costs few writes and little memory. */
export class JsonlWriter {
  private buffer: string[] = [];
  private chars = 0;

  constructor(private readonly write: (text: string) => void) {}

  line(text: string): void {
    this.buffer.push(text);
    this.chars += text.length;
    if (this.chars >= CHUNK_CHARS) this.flush();
  }

  event(e: TraceEvent): void {
    this.line(`${JSON.stringify(e)}\n`);
  }

  flush(): void {
    if (this.buffer.length === 0) return;
    const text = this.buffer.join('');
    this.buffer = [];
    this.chars = 0;
    this.write(text);
  }
}
