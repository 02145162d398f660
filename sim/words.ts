/**
 * A count and its noun, in the singular for one: "1 run", "2 runs",
 * "0 keys". `plural` for nouns that do not just take an s; `show` writes the
 * number (the lab groups its digits).
 */
export function counted(n: number, noun: string, plural = `${noun}s`, show: (n: number) => string = String): string {
  return `${show(n)} ${n === 1 ? noun : plural}`;
}
