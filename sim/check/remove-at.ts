/**
 * Removes the item at `i` from `list`, keeping the order of the rest. The
 * checker's short lists of what is open change at every grant and release:
 * `splice` would make an array of what it removed each time.
 */
export function removeAt<T>(list: T[], i: number): void {
  for (let j = i + 1; j < list.length; j++) list[j - 1] = list[j]!;
  // pop, not a shorter length: writing the length is a call into the engine's runtime, pop is not.
  list.pop();
}
