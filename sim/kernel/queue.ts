/**
 * A binary min-heap of scheduled events ordered by (time, sequence).
 *
 * The sequence number breaks ties in scheduling order, which is what makes a
 * run reproducible: two events at the same microsecond always fire in the
 * order they were scheduled, on every engine.
 */
export interface Scheduled {
  /** Set by the kernel when the event is scheduled: an object may be scheduled again once it has fired (see `Kernel.schedule`). */
  timeUs: number;
  seq: number;
  fire(): void;
  /** A cancelled event stays queued but is skipped: it neither fires nor counts. */
  cancelled: boolean;
  /** Whether it is in the queue now (pushed, not yet popped): only those count as cancelled entries. */
  queued: boolean;
}

/** Whether `a` fires before `b`: by time, then by the order they were scheduled. */
export function before(a: Scheduled, b: Scheduled): boolean {
  return a.timeUs < b.timeUs || (a.timeUs === b.timeUs && a.seq < b.seq);
}

/** Below this many cancelled entries the queue is never rebuilt: a small heap is cheap to walk as it is. */
const COMPACT_MIN = 32;

export class EventQueue {
  private heap: Scheduled[] = [];
  /** Cancelled entries still in the heap. */
  private cancelledCount = 0;

  get size(): number {
    return this.heap.length;
  }

  /**
   * Calls off a queued event. Most timers are timeouts that their reply
   * cancels: left in the heap until they come due they would outnumber the
   * live events many times over and make every push and pop walk a deeper
   * heap, so once they are more than half of it the heap is rebuilt without
   * them. Pop order is (time, seq), a total order, whatever the heap's shape.
   */
  cancel(item: Scheduled): void {
    if (item.cancelled) return;
    item.cancelled = true;
    if (!item.queued) return;
    this.cancelledCount++;
    if (this.cancelledCount > COMPACT_MIN && this.cancelledCount * 2 > this.heap.length) this.compact();
  }

  push(item: Scheduled): void {
    item.queued = true;
    const heap = this.heap;
    heap.push(item);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = heap[parent]!;
      if (!before(item, p)) break;
      heap[i] = p;
      i = parent;
    }
    heap[i] = item;
  }

  peek(): Scheduled | undefined {
    return this.heap[0];
  }

  pop(): Scheduled | undefined {
    const heap = this.heap;
    const top = heap[0];
    const last = heap.pop();
    if (top !== undefined) {
      top.queued = false;
      if (top.cancelled) this.cancelledCount--;
    }
    if (top === undefined || last === undefined || heap.length === 0) return top;
    this.siftDown(last, 0);
    return top;
  }

  /** Drops every cancelled entry and restores the heap order bottom-up (Floyd), in linear time. */
  private compact(): void {
    const kept: Scheduled[] = [];
    for (const item of this.heap) {
      if (item.cancelled) item.queued = false;
      else kept.push(item);
    }
    this.heap = kept;
    this.cancelledCount = 0;
    for (let i = (kept.length >> 1) - 1; i >= 0; i--) this.siftDown(kept[i]!, i);
  }

  /** Places `last` at position `start` or below it, moving smaller children up: the heap below `start` must be in order. */
  private siftDown(last: Scheduled, start: number): void {
    const heap = this.heap;
    const n = heap.length;
    let i = start;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let c = l;
      let child = heap[l]!;
      if (r < n) {
        const right = heap[r]!;
        if (before(right, child)) {
          c = r;
          child = right;
        }
      }
      if (!before(child, last)) break;
      heap[i] = child;
      i = c;
    }
    heap[i] = last;
  }
}
