import type { ScaleLinear } from 'd3-scale';

/** Axis ticks in true time with labels precise enough to tell neighbours apart, and no more. */
export function timeTicks(x: ScaleLinear<number, number>, count: number): { us: number; label: string }[] {
  const ticks = x.ticks(count);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1_000_000;
  return ticks.map((us) => ({ us, label: formatTick(us, step) }));
}

/**
 * Seconds with as many decimals as the step between ticks needs: 2 s steps
 * read "4 s", 200 µs steps "4.9992 s". Never more than microseconds.
 */
export function formatTick(us: number, stepUs: number): string {
  const digits = Math.max(0, Math.min(6, Math.ceil(-Math.log10(stepUs / 1_000_000) - 1e-9)));
  return `${(us / 1_000_000).toFixed(digits)} s`;
}

/** How a tick label is anchored so that it stays inside the plot: the first and last ones lean inwards. */
export function tickAnchor(px: number, plotW: number, labelPx: number): 'start' | 'middle' | 'end' {
  if (px < labelPx / 2) return 'start';
  if (px > plotW - labelPx / 2) return 'end';
  return 'middle';
}
