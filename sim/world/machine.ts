import type { Rng } from '../kernel/rng.js';
import { LocalClock } from './clock.js';

/** A host: a name and a local clock. Processes and store nodes live on machines. */
export class Machine {
  readonly clock: LocalClock;
  /** @internal The network's stream for the latencies of this machine's conversations, once it has drawn one (see Network.delayFrom). */
  netRng: Rng | undefined;
  /** Called after the clock jumps or changes rate, so timers on its clock can be re-planned. */
  private readonly clockListeners: Array<() => void> = [];

  constructor(
    readonly name: string,
    offsetUs: number,
    driftPpm: number,
  ) {
    this.clock = new LocalClock(offsetUs, driftPpm);
  }

  onClockChange(listener: () => void): void {
    this.clockListeners.push(listener);
  }

  clockChanged(): void {
    for (const listener of this.clockListeners) listener();
  }
}
