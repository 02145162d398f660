import { EventQueue, type Scheduled } from './queue.js';
import type { StopInfo, StopReason } from '../trace/types.js';

export type { StopInfo, StopReason } from '../trace/types.js';

/** A scheduled event that can still be called off. */
export type Timer = Scheduled;

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
   * Schedules `item` itself at `timeUs` (never in the past), next in
   * scheduling order: an object that is its own event (a call in flight)
   * needs no closure and no entry beside it. It may be scheduled again once
   * it has fired, as `at` would schedule a new one.
   */
  schedule(item: Scheduled, timeUs: number): void {
    item.timeUs = this.dueAt(timeUs);
    item.seq = this.seq++;
    item.cancelled = false;
    this.queue.push(item);
  }

  /**
   * The time an event set now, `delayUs` from now, falls due at: with
   * `reserveSeq`, the place in the order such an event would take, for one
   * that is queued later or never (see `scheduleReserved`).
   */
  dueAfter(delayUs: number): number {
    return this.dueAt(this.current + delayUs);
  }

  /** Takes the next place in scheduling order, as scheduling an event now would, without queueing anything. */
  reserveSeq(): number {
    return this.seq++;
  }

  /**
   * Queues `item` at a time and place reserved for it earlier (`dueAfter`,
   * `reserveSeq`). A deadline that usually never fires (a call's timeout,
   * which its reply beats) is queued only once it may: it fires in the same
   * order as if it had been queued when it was set, because nothing fires
   * before now and its place in the order was taken then. `timeUs` must not
   * be in the past.
   */
  scheduleReserved(item: Scheduled, timeUs: number, seq: number): void {
    if (timeUs < this.current) throw new Error(`a reserved event is due at ${timeUs} µs, before now (${this.current} µs)`);
    item.timeUs = timeUs;
    item.seq = seq;
    item.cancelled = false;
    this.queue.push(item);
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
    for (;;) {
      const next = queue.peek();
      if (next === undefined) return this.stop('completed');
      if (next.cancelled) {
        queue.pop();
        continue;
      }
      if (next.timeUs > budget.maxTimeUs) return this.stop('time-budget');
      if (this.processed >= budget.maxEvents) return this.stop('event-budget');
      queue.pop();
      this.current = next.timeUs;
      this.processed++;
      next.fire();
    }
  }

  private stop(reason: StopReason): StopInfo {
    return { reason, events: this.processed, timeUs: this.current };
  }
}
