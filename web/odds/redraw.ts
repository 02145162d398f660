/**
 * Draws the latest of a stream of values at most once every `ms`: the first
 * as soon as the page is free, each later one `ms` after the draw before it,
 * always with the newest value. A sweep's counts arrive hundreds of times a
 * second, and the page that draws them shares the machine's cores with the
 * workers that make them.
 */
export function latestEvery<T>(ms: number, draw: (value: T) => void): { push(value: T): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let drawnAt = -Infinity;
  let latest: T;
  return {
    push(value) {
      latest = value;
      if (timer !== undefined) return;
      timer = setTimeout(
        () => {
          timer = undefined;
          drawnAt = performance.now();
          draw(latest);
        },
        Math.max(0, drawnAt + ms - performance.now()),
      );
    },
    cancel() {
      clearTimeout(timer);
      timer = undefined;
    },
  };
}
