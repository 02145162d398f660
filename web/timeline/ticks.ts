import type { ScaleLinear } from 'd3-scale';

/** Axis ticks in true time with labels precise enough to tell neighbours apart. */
export function timeTicks(x: ScaleLinear<number, number>, count: number): { us: number; label: string }[] {
  const ticks = x.ticks(count);
  const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : 1_000_000;
  return ticks.map((us) => ({ us, label: formatTick(us, step) }));
}

export function formatTick(us: number, stepUs: number): string {
  if (stepUs >= 1_000_000) return `${(us / 1_000_000).toFixed(Math.max(0, -Math.floor(Math.log10(stepUs / 1_000_000))))} s`;
  if (stepUs >= 1_000) return `${(us / 1_000_000).toFixed(Math.min(3, 6 - Math.floor(Math.log10(stepUs))))} s`;
  return `${(us / 1_000_000).toFixed(6)} s`;
}
