import type { TraceEvent } from '../trace/types.js';

/**
 * What a timeline shows: the events of its head, read in order (a kept
 * trace is read twice, never held as objects), those of its tail, and how
 * many were left out between them.
 */
export interface ShownEvents {
  readonly head: Iterable<TraceEvent>;
  readonly tail: readonly TraceEvent[];
  readonly elided: number;
  readonly total: number;
}

/**
 * The events a timeline shows of a run: all of them, or the first `head`
 * and the last `tail` with a count of those between. Fed one event at a
 * time, it holds at most head + tail events, so a timeline of any length
 * costs the memory of what it prints.
 */
export class EventWindow implements ShownEvents {
  readonly head: TraceEvent[] = [];
  private readonly ring: TraceEvent[] = [];
  private next = 0;
  /** Events seen in all. */
  total = 0;

  /** Undefined limits keep everything on that side. */
  constructor(
    readonly headCount: number = Number.POSITIVE_INFINITY,
    readonly tailCount: number = 0,
  ) {}

  /** A window over events already held (a kept trace), by the same limits. */
  static of(events: Iterable<TraceEvent>, headCount?: number, tailCount?: number): EventWindow {
    const w = new EventWindow(headCount, tailCount);
    for (const e of events) w.push(e);
    return w;
  }

  push(e: TraceEvent): void {
    this.total++;
    if (this.head.length < this.headCount) {
      this.head.push(e);
      return;
    }
    if (this.tailCount === 0) return;
    if (this.ring.length < this.tailCount) this.ring.push(e);
    else this.ring[this.next] = e;
    this.next = (this.next + 1) % this.tailCount;
  }

  /** The last events, oldest first. */
  get tail(): TraceEvent[] {
    if (this.ring.length < this.tailCount) return [...this.ring];
    return [...this.ring.slice(this.next), ...this.ring.slice(0, this.next)];
  }

  /** Events neither in the head nor in the tail. */
  get elided(): number {
    return this.total - this.head.length - this.ring.length;
  }
}
