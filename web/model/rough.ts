/** A duration as people say it in a sentence: "6 s", "1.5 s", "350 ms", "40 µs" (two significant digits at most). */
export function roughDuration(us: number): string {
  const a = Math.abs(us);
  const two = (v: number) => (v >= 10 ? String(Math.round(v)) : String(Math.round(v * 10) / 10));
  // Thresholds at the rounding point, so 999.7 ms reads "1 s", never "1000 ms".
  if (a >= 999_500) return `${two(a / 1_000_000)} s`;
  if (a >= 999.5) return `${two(a / 1_000)} ms`;
  return `${Math.round(a)} µs`;
}
