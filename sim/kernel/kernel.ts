import { EventQueue, before, type Scheduled } from './queue.js';
import type { StopInfo, StopReason } from '../trace/types.js';

export type { StopInfo, StopReason } from '../trace/types.js';

/** A scheduled event that can still be called off. */
export type Timer = Scheduled;

/** The most delays that get a lane of their own; a deadline with any other delay goes on the heap. */
const MAX_LANES = 8;

/**
 * Deadlines set with one delay, in the order they were set: each falls due
 * no earlier than the one before it, with a later sequence number, so the
 * lane is already in (time, sequence) order and needs no heap.
 */
class Lane {
  private items: Scheduled[] = [];
  private head = 0;

  constructor(readonly delayUs: number) {}

  push(item: Scheduled): void {
    this.items.push(item);
  }

  /** The first deadline still set, dropping those called off before it. */
  peek(): Scheduled | undefined {
    const items = this.items;
    let head = this.head;
    while (head < items.length && items[head]!.cancelled) head++;
    if (head > 1024 && head * 2 > items.length) {
      items.splice(0, head);
      head = 0;
    }
    this.head = head;
    return items[head];
  }

  shift(): void {
    this.head++;
  }
}

export interface Budget {
  /** The most kernel events one run may process. */
  readonly maxEvents: number;
  /** The latest virtual time, in microseconds, an event may fire at. */
  readonly maxTimeUs: number;
}

/**
 * The discrete-event kernel: virtual time in integer microseconds and a queue
 * of callbacks. It knows nothing of locks, clocks or networks; everything
 * else is built from `at` and `after`.
 */
export class Kernel {
  private readonly queue = new EventQueue();
  private readonly lanes: Lane[] = [];
  private seq = 0;
  private processed = 0;
  private current = 0;

  /** Virtual time now, in microseconds since the start of the run. */
  get nowUs(): number {
    return this.current;
  }

  get eventsProcessed(): number {
    return this.processed;
  }

  /** Schedules `fire` at absolute virtual time `timeUs` (never in the past). */
  at(timeUs: number, fire: () => void): Timer {
    const item = this.scheduled(timeUs, fire);
    this.queue.push(item);
    return item;
  }

  /** Schedules `fire` after `delayUs` microseconds of virtual time. */
  after(delayUs: number, fire: () => void): Timer {
    return this.at(this.current + delayUs, fire);
  }

  /**
   * Schedules `fire` after `delayUs`, for a deadline that is usually called
   * off and whose delay many others share: a call's timeout. Deadlines with
   * one delay fall due in the order they were set, so they wait in a lane
   * of their own instead of the heap; the order events fire in is the same.
   */
  deadline(delayUs: number, fire: () => void): Timer {
    return this.scheduleDeadline(this.scheduled(this.current + delayUs, fire), delayUs);
  }

  /**
   * Schedules `item` itself at `timeUs` (never in the past), next in
   * scheduling order: an object that is its own event (a call in flight)
   * needs no closure and no entry beside it. It may be scheduled again once
   * it has fired, as `at` would schedule a new one.
   */
  schedule(item: Scheduled, timeUs: number): void {
    this.stamp(item, timeUs);
    this.queue.push(item);
  }

  /** `deadline` for an object that is its own event (see `schedule`); it must not be queued. */
  timeout(item: Scheduled, delayUs: number): Timer {
    this.stamp(item, this.current + delayUs);
    return this.scheduleDeadline(item, delayUs);
  }

  /** Gives `item` its time (`timeUs`, never in the past) and the next place in scheduling order. */
  private stamp(item: Scheduled, timeUs: number): void {
    item.timeUs = this.dueAt(timeUs);
    item.seq = this.seq++;
    item.cancelled = false;
  }

  private scheduleDeadline(item: Scheduled, delayUs: number): Timer {
    let lane: Lane | undefined;
    for (const l of this.lanes) if (l.delayUs === delayUs) lane = l;
    if (lane === undefined) {
      if (this.lanes.length >= MAX_LANES) {
        this.queue.push(item);
        return item;
      }
      lane = new Lane(delayUs);
      this.lanes.push(lane);
    }
    lane.push(item);
    return item;
  }

  /** A new event at `timeUs` (never in the past), next in scheduling order. */
  private scheduled(timeUs: number, fire: () => void): Scheduled {
    return { timeUs: this.dueAt(timeUs), seq: this.seq++, fire, cancelled: false, queued: false };
  }

  /** `timeUs` in whole microseconds, and now if it is in the past. */
  private dueAt(timeUs: number): number {
    return timeUs < this.current ? this.current : Math.ceil(timeUs);
  }

  /**
   * Calls off a scheduled event. It is dropped when it reaches the head of the
   * queue, without advancing time or counting against the budget, so timers
   * that no longer matter (a timeout after its reply) do not stretch a run.
   */
  cancel(timer: Timer | undefined): void {
    if (timer !== undefined) this.queue.cancel(timer);
  }

  /**
   * Processes events in (time, sequence) order until the queue is empty or a
   * budget is reached. An event later than the time budget is not fired.
   */
  run(budget: Budget): StopInfo {
    const queue = this.queue;
    const lanes = this.lanes;
    for (;;) {
      let next = queue.peek();
      if (next !== undefined && next.cancelled) {
        queue.pop();
        continue;
      }
      let from: Lane | undefined;
      for (let i = 0; i < lanes.length; i++) {
        const head = lanes[i]!.peek();
        if (head !== undefined && (next === undefined || before(head, next))) {
          next = head;
          from = lanes[i];
        }
      }
      if (next === undefined) return this.stop('completed');
      if (next.timeUs > budget.maxTimeUs) return this.stop('time-budget');
      if (this.processed >= budget.maxEvents) return this.stop('event-budget');
      if (from === undefined) queue.pop();
      else from.shift();
      this.current = next.timeUs;
      this.processed++;
      next.fire();
    }
  }

  private stop(reason: StopReason): StopInfo {
    return { reason, events: this.processed, timeUs: this.current };
  }
}
