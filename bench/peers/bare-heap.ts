/**
 * The bench workload on a bare typed-array binary heap, with no trace, no
 * checker and no model beyond the lease itself: the floor of what any event
 * loop in JavaScript can do on this workload. Events are (time, client,
 * step) triples in parallel typed arrays; the heap orders them by time, then
 * by insertion.
 */
import { makeRng } from '../../sim/kernel/rng.js';
import { drawUs } from '../../sim/kernel/dist.js';
import { WORKLOAD } from '../workload.js';

const enum Step {
  Request,
  Reply,
  Work,
  Release,
}

export function bareHeapCycles(cycles: number): number {
  const w = WORKLOAD;
  const n = w.clients;
  const iterations = Math.ceil(cycles / n);
  const cap = 1 << 12;
  const time = new Float64Array(cap);
  const order = new Float64Array(cap);
  const who = new Int32Array(cap);
  const what = new Int8Array(cap);
  let size = 0;
  let seq = 0;
  const less = (a: number, b: number): boolean => time[a]! < time[b]! || (time[a] === time[b] && order[a]! < order[b]!);
  const swap = (a: number, b: number): void => {
    [time[a], time[b]] = [time[b]!, time[a]!];
    [order[a], order[b]] = [order[b]!, order[a]!];
    [who[a], who[b]] = [who[b]!, who[a]!];
    [what[a], what[b]] = [what[b]!, what[a]!];
  };
  const push = (t: number, c: number, s: Step): void => {
    let i = size++;
    time[i] = t;
    order[i] = seq++;
    who[i] = c;
    what[i] = s;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(i, p)) break;
      swap(i, p);
      i = p;
    }
  };
  const pop = (): void => {
    size--;
    swap(0, size);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < size && less(l, m)) m = l;
      if (r < size && less(r, m)) m = r;
      if (m === i) return;
      swap(i, m);
      i = m;
    }
  };
  const rngs = Array.from({ length: n }, (_, i) => makeRng(`bare/${i}`));
  const done = new Int32Array(n);
  const granted = new Uint8Array(n);
  let owner = -1;
  let expires = 0;
  let count = 0;
  const lat = (c: number): number => rngs[c]!.int(w.latencyMinMs * 1000, w.latencyMaxMs * 1000);
  for (let c = 0; c < n; c++) push(0, c, Step.Request);
  while (size > 0) {
    const t = time[0]!;
    const c = who[0]!;
    const s = what[0]! as Step;
    pop();
    const rng = rngs[c]!;
    switch (s) {
      case Step.Request:
        push(t + lat(c), c, Step.Reply);
        // The store decides when the request arrives; the decision rides on the reply.
        if (owner !== -1 && expires <= t) owner = -1;
        granted[c] = owner === -1 ? 1 : 0;
        if (owner === -1) {
          owner = c;
          expires = t + w.ttlMs * 1000;
        }
        break;
      case Step.Reply:
        if (granted[c] === 1) {
          count++;
          const pause = rng.chance(w.pauseProbability) ? rng.int(0, w.pauseMaxMs * 1000) : 0;
          push(t + pause + drawUs(rng, { distribution: 'exponential', meanMs: w.workMeanMs }), c, Step.Work);
        } else push(t + w.pollMs * 1000 + rng.int(-w.pollJitterMs * 1000, w.pollJitterMs * 1000), c, Step.Request);
        break;
      case Step.Work:
        push(t + lat(c), c, Step.Release);
        break;
      case Step.Release:
        if (owner === c && expires > t) owner = -1;
        if (++done[c]! < iterations) push(t + lat(c), c, Step.Request);
        break;
    }
  }
  return count;
}
