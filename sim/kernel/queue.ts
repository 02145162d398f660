/**
 * A binary min-heap of scheduled events ordered by (time, sequence).
 *
 * The sequence number breaks ties in scheduling order, which is what makes a
 * run reproducible: two events at the same microsecond always fire in the
 * order they were scheduled, on every engine.
 */
export interface Scheduled {
  readonly timeUs: number;
  readonly seq: number;
  readonly fire: () => void;
  /** A cancelled event stays queued but is skipped: it neither fires nor counts. */
  cancelled: boolean;
}

function before(a: Scheduled, b: Scheduled): boolean {
  return a.timeUs < b.timeUs || (a.timeUs === b.timeUs && a.seq < b.seq);
}

export class EventQueue {
  private readonly heap: Scheduled[] = [];

  get size(): number {
    return this.heap.length;
  }

  push(item: Scheduled): void {
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
    if (top === undefined || last === undefined || heap.length === 0) return top;
    const n = heap.length;
    let i = 0;
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
    return top;
  }
}
