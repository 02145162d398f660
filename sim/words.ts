/**
 * A count and its noun, in the singular for one: "1 run", "2 runs",
 * "0 keys". `plural` for nouns that do not just take an s ("batches");
 * `show` writes the number (`grouped`: "475,768").
 */
export function counted(n: number, noun: string, how: { readonly plural?: string; readonly show?: (n: number) => string } = {}): string {
  return `${(how.show ?? String)(n)} ${n === 1 ? noun : (how.plural ?? `${noun}s`)}`;
}

/** A share as a percentage to two significant digits, in plain digits however small ("0.18", "0.0032", "1.2"); from 10 on, to one decimal. */
export function percent2(x: number): string {
  const v = x * 100;
  if (v === 0 || v === 100) return String(v);
  if (v >= 10) return v > 99.9 ? Math.min(99.99, Number(v.toFixed(2))).toFixed(2) : v.toFixed(1);
  return v.toFixed(Math.min(20, Math.max(1, 1 - Math.floor(Math.log10(v)))));
}
