/** The largest seed: seeds are unsigned 32-bit integers, as the schema's `seed` says. */
export const MAX_SEED = 4_294_967_295;

/**
 * Reads a seed typed by a person (a command-line option, a link parameter):
 * whole decimal digits from 0 to MAX_SEED. Returns the seed, or what was
 * expected, so the CLI and the lab refuse the same seeds with the same words.
 */
export function readSeed(text: string): { ok: true; seed: number } | { ok: false; expected: string } {
  const t = text.trim();
  if (/^\d{1,10}$/.test(t) && Number(t) <= MAX_SEED) return { ok: true, seed: Number(t) };
  return { ok: false, expected: `expected a whole number from 0 to ${MAX_SEED}` };
}
