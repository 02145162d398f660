/**
 * True time for a real run: microseconds on the machine's monotonic clock
 * (CLOCK_MONOTONIC, shared by every process on it) since the run's origin.
 * Every process of a run stamps its events from this one clock, so their
 * events interleave correctly however the processes are scheduled.
 */
export class RunClock {
  constructor(private origin: bigint) {}

  get originNs(): bigint {
    return this.origin;
  }

  /** Sets the run's origin (the runner picks it once every process is ready). */
  setOrigin(originNs: bigint): void {
    this.origin = originNs;
  }

  /** A clock whose origin is now. */
  static startNow(): RunClock {
    return new RunClock(process.hrtime.bigint());
  }

  nowUs(): number {
    return Number((process.hrtime.bigint() - this.origin) / 1000n);
  }

  /** Resolves once true time reaches `atUs` (at once when it already has). */
  async until(atUs: number): Promise<void> {
    const waitMs = (atUs - this.nowUs()) / 1000;
    if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, Math.ceil(waitMs)));
  }
}
