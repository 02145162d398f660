import { describe, expect, it } from 'vitest';
import { StepMarker } from '../sim/clients/step-marks.js';
import { numberEvents, numberMarks, type RawMark } from '../sim/real/in-process.js';
import type { RawEvent } from '../sim/real/runtime/real-runtime.js';

/*
 * A real run's events arrive from several processes and are ordered by the
 * run's clock afterwards; the step marks its clients send arrive with them
 * and must point at the same events as a simulated run's would: the first
 * event ordered after the mark.
 */

const ev = (timeUs: number, actor: string, kind: string): RawEvent => ({ timeUs, kind, actor, machine: 'm' }) as RawEvent;

describe("a real run's step marks, numbered as its events are", () => {
  // In arrival order: B's event at 10 µs, A's at 5 µs, then A's at 10 µs (a tie with B's, which arrived first).
  const raw = [ev(10, 'B', 'b1'), ev(5, 'A', 'a1'), ev(10, 'A', 'a2')];

  it('orders the events by time, ties by arrival', () => {
    expect(numberEvents(raw).map((e) => `${e.seq} ${e.kind}`)).toEqual(['0 a1', '1 b1', '2 a2']);
  });

  it('gives each mark the seq of the first event ordered after it, and hands them on in seq order, ties in arrival order', () => {
    const marks: RawMark[] = [
      // Before any event.
      { process: 'A', path: '0', timeUs: 4, after: 0 },
      // At 10 µs, after B's event arrived but before A's of the same microsecond: between them.
      { process: 'A', path: '0.s.1', timeUs: 10, after: 2 },
      // At 7 µs: after A's first event, before B's at 10 µs, whatever arrived first.
      { process: 'B', path: '0', timeUs: 7, after: 1 },
      // At 10 µs, after all three had arrived: past the last event.
      { process: 'B', path: null, timeUs: 10, after: 3 },
      // Made at the same moment as A's first mark: it follows it.
      { process: 'A', path: '0.new', timeUs: 4, after: 0 },
    ];
    const sink = new StepMarker();
    numberMarks(raw, marks, sink);
    expect(sink.marks.seq).toEqual([0, 0, 1, 2, 3]);
    expect(sink.marks.seq.map((_, i) => `${sink.marks.processes[sink.marks.process[i]!]} ${sink.marks.path[i]}`)).toEqual([
      'A 0',
      'A 0.new',
      'B 0',
      'A 0.s.1',
      'B null',
    ]);
  });

  it('numbers nothing when nothing was marked, and marks past the end when no event came after', () => {
    const none = new StepMarker();
    numberMarks(raw, [], none);
    expect(none.marks.seq).toEqual([]);
    const late = new StepMarker();
    numberMarks(raw, [{ process: 'A', path: null, timeUs: 99, after: 0 }], late);
    expect(late.marks.seq).toEqual([3]);
  });
});
