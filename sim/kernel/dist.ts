import type { Rng } from './rng.js';

/**
 * A duration drawn afresh each time it is used: fixed, uniform, exponential
 * or long-tailed. Every draw is plain arithmetic on a seeded stream (no
 * Math.log, whose last bit engines may round differently), so a run draws
 * the same numbers under Node and in every browser.
 */
export type Distribution =
  | { readonly distribution: 'fixed'; readonly ms: number }
  | { readonly distribution: 'uniform'; readonly minMs: number; readonly maxMs: number }
  | { readonly distribution: 'exponential'; readonly meanMs: number }
  | { readonly distribution: 'long-tail'; readonly minMs: number; readonly maxMs: number };

const LN2 = 0.6931471805599453;

/**
 * ln(x) for 0 < x ≤ 1 by arithmetic alone: halve the range to [0.5, 1), then
 * ln(m) = 2·atanh((m−1)/(m+1)), whose series converges within 1e-17 in 24 terms.
 */
export function lnUnit(x: number): number {
  let k = 0;
  let m = x;
  while (m < 0.5) {
    m *= 2;
    k++;
  }
  const z = (m - 1) / (m + 1);
  const z2 = z * z;
  let term = z;
  let sum = 0;
  for (let n = 1; n < 48; n += 2) {
    sum += term / n;
    term *= z2;
  }
  return 2 * sum - k * LN2;
}

/** One draw, in whole microseconds (never negative). */
export function drawUs(rng: Rng, d: Distribution): number {
  switch (d.distribution) {
    case 'fixed':
      return Math.round(d.ms * 1000);
    case 'uniform':
      return rng.int(Math.round(d.minMs * 1000), Math.round(d.maxMs * 1000));
    case 'exponential': {
      // 1 − u lies in (0, 1]: never the log of zero.
      const u = 1 - rng.next();
      return Math.round(-d.meanMs * 1000 * lnUnit(u));
    }
    case 'long-tail': {
      // Mostly near the minimum, a few up to the maximum (mean a fifth of the range), as network latency's long tail.
      const u = rng.next();
      const min = d.minMs * 1000;
      return Math.round(min + (d.maxMs * 1000 - min) * u * u * u * u);
    }
  }
}

/** The field that sets how long a distribution's draws are, to vary or to change: an exponential's mean, a range's longest value, a fixed one's value. */
export function sizeField(d: Distribution): 'meanMs' | 'ms' | 'maxMs' {
  return d.distribution === 'exponential' ? 'meanMs' : d.distribution === 'fixed' ? 'ms' : 'maxMs';
}

/** The mean of a distribution, in milliseconds (what a summary or a sweep axis shows). */
export function meanMs(d: Distribution): number {
  switch (d.distribution) {
    case 'fixed':
      return d.ms;
    case 'uniform':
      return (d.minMs + d.maxMs) / 2;
    case 'exponential':
      return d.meanMs;
    case 'long-tail':
      return d.minMs + (d.maxMs - d.minMs) / 5;
  }
}
