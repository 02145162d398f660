import { makeRng } from '../kernel/rng.js';

/**
 * The order a question's options are shown in, in the lab and in the
 * terminal: a permutation of `0..n-1` drawn from a stream seeded by the
 * lesson's id and the question's key (its id, or `storyAskKey` for a story's
 * question). The same on every visit and everywhere, and independent of the
 * order the options are written in: authors tend to write the right answer
 * first, and a learner soon learns to pick the first option. Answers are
 * kept by the written index, so reordering never changes what was answered.
 */
export function optionOrder(lessonId: string, questionKey: string, n: number): number[] {
  const order = Array.from({ length: n }, (_, i) => i);
  const rng = makeRng(`options/${lessonId}/${questionKey}`);
  // Fisher–Yates: every permutation equally likely.
  for (let i = n - 1; i > 0; i--) {
    const j = rng.int(0, i);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/** The key a story's question is answered under (and its options ordered by): the story's and the stop's ids. */
export function storyAskKey(storyId: string, stopId: string): string {
  return `stop:${storyId}/${stopId}`;
}
