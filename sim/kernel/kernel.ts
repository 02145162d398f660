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
    const t = timeUs < this.current ? this.current : Math.ceil(timeUs);
    const item: Scheduled = { timeUs: t, seq: this.seq++, fire, cancelled: false, queued: false };
    this.queue.push(item);
    return item;
  }

  /** Schedules `fire` after `delayUs` microseconds of virtual time. */
  after(delayUs: number, fire: () => void): Timer {
    return this.at(this.current + delayUs, fire);
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
