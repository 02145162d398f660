/*
 * Wilson score intervals, computed from integer counts. A share of runs is
 * reported as k of n, and the interval is derived from those two integers
 * only, so merging counts from any number of workers in any order gives the
 * same interval, bit for bit.
 */

/** The two-sided 95 % quantile of the standard normal distribution. */
export const Z95 = 1.959963984540054;

/** A share of runs with its Wilson 95 % interval; `p`, `lo` and `hi` are fractions in [0, 1]. */
export interface Share {
  readonly k: number;
  readonly n: number;
  readonly p: number;
  readonly lo: number;
  readonly hi: number;
}

/** The Wilson score interval for k successes in n trials (n = 0 gives the whole of [0, 1]). */
export function wilson(k: number, n: number, z: number = Z95): Share {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || n < 0 || k > n)
    throw new RangeError(`wilson: expected integers 0 <= k <= n, got k=${k}, n=${n}`);
  if (n === 0) return { k, n, p: 0, lo: 0, hi: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At k = 0 and k = n the interval touches the bound exactly; rounding must not push it past.
  return { k, n, p, lo: k === 0 ? 0 : Math.max(0, centre - half), hi: k === n ? 1 : Math.min(1, centre + half) };
}
