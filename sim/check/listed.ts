/**
 * A list of findings that keeps its first `limit` entries and counts the
 * rest: a run judged in bounded memory may find a million of something,
 * and its verdict says how many without holding them all.
 */
export class Listed<T> {
  readonly items: T[] = [];
  omitted = 0;

  constructor(private readonly limit: number = Infinity) {}

  push(x: T): void {
    if (this.items.length < this.limit) this.items.push(x);
    else this.omitted++;
  }
}
