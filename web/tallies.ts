/*
 * How many times some parts of the page did their work (a Sandbox card
 * drawn, the Sandbox's scenario checked), for the browser tests to hold the
 * page to doing only what an edit needs: a count, unlike a time, is the
 * same on every machine. Read through window.__locklab.tallies().
 */

const counts = new Map<string, number>();

/** Counts one more `what`. */
export function tally(what: string): void {
  counts.set(what, (counts.get(what) ?? 0) + 1);
}

/** Every count so far, by what it counts. */
export const tallies = (): Record<string, number> => Object.fromEntries(counts);
