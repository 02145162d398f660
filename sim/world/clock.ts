/**
 * A machine's local clock as a piecewise-linear function of true time.
 *
 * Between changes the clock reads `anchorLocal + elapsed + elapsed × drift`,
 * where elapsed is true time since the anchor and drift is in parts per
 * million. A jump or a change of drift re-anchors the clock at that moment.
 * Everything is integer microseconds, rounded down, so a reading is
 * the same on every engine.
 */
export class LocalClock {
  private anchorTrueUs = 0;
  private anchorLocalUs: number;
  private ppm: number;

  constructor(offsetUs: number, driftPpm: number) {
    this.anchorLocalUs = offsetUs;
    this.ppm = driftPpm;
  }

  get driftPpm(): number {
    return this.ppm;
  }

  /** The clock's reading at true time `trueUs` (not before the last change). */
  read(trueUs: number): number {
    const elapsed = trueUs - this.anchorTrueUs;
    return this.anchorLocalUs + elapsed + Math.floor((elapsed * this.ppm) / 1_000_000);
  }

  /** Steps the clock by `byUs` (negative steps it back), as NTP or an operator might. */
  jump(trueUs: number, byUs: number): void {
    this.anchorLocalUs = this.read(trueUs) + byUs;
    this.anchorTrueUs = trueUs;
  }

  /** Changes the rate at which the clock runs from `trueUs` on. */
  setDrift(trueUs: number, driftPpm: number): void {
    this.anchorLocalUs = this.read(trueUs);
    this.anchorTrueUs = trueUs;
    this.ppm = driftPpm;
  }

  /**
   * The earliest true time, not before `fromTrueUs`, at which the clock reads
   * at least `localUs` assuming no further changes.
   */
  trueTimeAt(localUs: number, fromTrueUs: number): number {
    if (this.read(fromTrueUs) >= localUs) return fromTrueUs;
    const rate = 1_000_000 + this.ppm;
    let t = this.anchorTrueUs + Math.ceil(((localUs - this.anchorLocalUs) * 1_000_000) / rate);
    if (t < fromTrueUs) t = fromTrueUs;
    // Rounding in read() can leave the estimate a microsecond off either way.
    while (this.read(t) < localUs) t++;
    while (t > fromTrueUs && this.read(t - 1) >= localUs) t--;
    return t;
  }

  /** True microseconds that pass while this clock measures `localUs` (a timer or sleep). */
  trueDuration(localUs: number): number {
    if (this.ppm === 0) return localUs;
    return Math.ceil((localUs * 1_000_000) / (1_000_000 + this.ppm));
  }
}
