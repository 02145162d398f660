/** Virtual time is kept in integer microseconds everywhere in the core. */
export const US_PER_MS = 1000;
export const US_PER_S = 1_000_000;

/** Converts a scenario duration in (possibly fractional) milliseconds to whole microseconds. */
export function msToUs(ms: number): number {
  return Math.round(ms * US_PER_MS);
}

/** Formats microseconds for people: "12.345 s", "850 ms", "40 µs". */
export function formatDuration(us: number): string {
  const sign = us < 0 ? '-' : '';
  const a = Math.abs(us);
  if (a >= US_PER_S) return `${sign}${trimZeros((a / US_PER_S).toFixed(3))} s`;
  if (a >= US_PER_MS) return `${sign}${trimZeros((a / US_PER_MS).toFixed(3))} ms`;
  return `${sign}${a} µs`;
}

/** Formats a point in time with fixed millisecond precision, for aligned columns. */
export function formatInstant(us: number): string {
  const sign = us < 0 ? '-' : '';
  return `${sign}${(Math.abs(us) / US_PER_S).toFixed(3)} s`;
}

function trimZeros(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
