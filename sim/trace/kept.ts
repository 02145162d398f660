import type { Belief, JsonValue, TraceEvent } from './types.js';

/** Events kept as the recorder's own objects before the columns begin: a short run keeps its events as they are. */
const HEAD = 4096;
/** Events per chunk of columns: a chunk is made full size and never copied, so a long trace grows without moving what it holds. */
const CHUNK = 4096;
/**
 * The numbers of an event, in a Float64Array per chunk: timeUs, localUs,
 * fence, ttlUs, msg (NaN where absent). Its buffer lies outside the heap,
 * so the collector neither copies nor marks it. (An array of numbers made
 * at full size begins as one of small integers and is copied whole into one
 * of doubles at its first NaN: two large objects per chunk, each a step of
 * the collector's marking.) Only long runs make chunks; a short run keeps
 * its events as objects (HEAD) and makes no buffer.
 */
const NUMS = 5;
/** The strings and objects of an event, in an array per chunk: kind, actor, machine, key, owner, peer, reason, believes, data. */
const REFS = 9;

/**
 * A kept trace. Its first HEAD events are the recorder's objects; the rest
 * are held in columns, an event's numbers in one array and its strings and
 * objects in another, a chunk of events at a time, and an event becomes an
 * object again only when it is read.
 *
 * Kept as objects, every event of a long run outlived the young generation:
 * the collector copied each one twice on its way to the old one and marked
 * it there at every full collection, and a run that kept its trace spent
 * more time in the collector than in the simulation. In columns, what it
 * keeps is written in place and never moved; the numbers are not even
 * looked at by the collector. The strings and the data objects are the
 * recorder's own, shared between events, so they cost one reference each.
 * A short run (a sweep's, a lesson's) keeps a few dozen objects that die
 * with it, which is cheaper than making columns for them.
 *
 * An event read back is the event recorded, field for field and in the same
 * order (absent fields are present and undefined, as the recorder makes
 * them), so it serializes to the same bytes.
 */
export class KeptTrace implements Iterable<TraceEvent> {
  /** Events as objects: the recorder's own for the first HEAD, and those read back by `toArray` after them. */
  private readonly objects: TraceEvent[] = [];
  private readonly nums: Float64Array[] = [];
  private readonly refs: unknown[][] = [];
  private count = 0;

  get length(): number {
    return this.count;
  }

  /** Appends `e`, the event numbered `length`. */
  push(e: TraceEvent): void {
    const i = this.count;
    this.count = i + 1;
    if (i < HEAD) {
      this.objects.push(e);
      return;
    }
    const at = (i - HEAD) % CHUNK;
    if (at === 0) {
      // Made at full size and written by index: a push of nine values at once is not one V8 compiles inline.
      this.nums.push(new Float64Array(CHUNK * NUMS));
      this.refs.push(new Array<unknown>(CHUNK * REFS));
    }
    const n = this.nums[this.nums.length - 1]!;
    const o = at * NUMS;
    n[o] = e.timeUs;
    n[o + 1] = e.localUs ?? NaN;
    n[o + 2] = e.fence ?? NaN;
    n[o + 3] = e.ttlUs ?? NaN;
    n[o + 4] = e.msg ?? NaN;
    const r = this.refs[this.refs.length - 1]!;
    const p = at * REFS;
    r[p] = e.kind;
    r[p + 1] = e.actor;
    r[p + 2] = e.machine;
    r[p + 3] = e.key;
    r[p + 4] = e.owner;
    r[p + 5] = e.peer;
    r[p + 6] = e.reason;
    r[p + 7] = e.believes;
    r[p + 8] = e.data;
  }

  /** The kind of event `i`, without making the event. */
  kindAt(i: number): string {
    if (i < HEAD) return this.objects[i]!.kind;
    const j = i - HEAD;
    return this.refs[Math.floor(j / CHUNK)]![(j % CHUNK) * REFS] as string;
  }

  /** The virtual time of event `i`, without making the event. */
  timeAt(i: number): number {
    if (i < HEAD) return this.objects[i]!.timeUs;
    const j = i - HEAD;
    return this.nums[Math.floor(j / CHUNK)]![(j % CHUNK) * NUMS]!;
  }

  /** Event `i`: the object kept for it, if there is one, else a new object equal to the one recorded. */
  at(i: number): TraceEvent {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no event ${i} in a trace of ${this.count}`);
    if (i < this.objects.length) return this.objects[i]!;
    const j = i - HEAD;
    const c = Math.floor(j / CHUNK);
    const n = this.nums[c]!;
    const r = this.refs[c]!;
    const o = (j % CHUNK) * NUMS;
    const p = (j % CHUNK) * REFS;
    // Every field, in the recorder's order, undefined where absent: the same object shape and the same bytes.
    return {
      seq: i,
      timeUs: n[o]!,
      kind: r[p] as string,
      actor: r[p + 1] as string,
      machine: r[p + 2] as string,
      localUs: num(n[o + 1]!),
      key: r[p + 3] as string | undefined,
      owner: r[p + 4] as string | undefined,
      fence: num(n[o + 2]!),
      ttlUs: num(n[o + 3]!),
      peer: r[p + 5] as string | undefined,
      msg: num(n[o + 4]!),
      reason: r[p + 6] as string | undefined,
      believes: r[p + 7] as Belief | undefined,
      data: r[p + 8] as Record<string, JsonValue> | undefined,
    } as TraceEvent;
  }

  /**
   * Every event as an object, made once: the array is kept and grows with
   * the trace, so the same event is the same object at every call. A long
   * trace read this way is as big as it was kept as objects; iterate it
   * instead to read it in bounded memory.
   */
  toArray(): TraceEvent[] {
    const objects = this.objects;
    for (let i = objects.length; i < this.count; i++) objects.push(this.at(i));
    return objects;
  }

  /** Every event in order (see `at`): those made here are not kept. */
  *[Symbol.iterator](): Iterator<TraceEvent> {
    for (let i = 0; i < this.count; i++) yield this.at(i);
  }
}

function num(x: number): number | undefined {
  return Number.isNaN(x) ? undefined : x;
}
