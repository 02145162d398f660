import type { Belief, JsonValue, TraceEvent } from './types.js';

/** Events kept as the recorder's own objects before the columns begin: a short run keeps its events as they are. */
const HEAD = 4096;
/** Events per chunk of columns: a chunk is made full size and never copied, so a long trace grows without moving what it holds. */
const CHUNK = 4096;
/**
 * The numbers of an event, in an Int32Array per chunk: its time, as the
 * microseconds since its chunk's first event (the chunk's `base`); its
 * local time, as the microseconds it is ahead of the true time (0 on most
 * machines); its fence, ttlUs and msg. ABSENT where absent. A number the
 * column cannot give back exactly (a run's hours in one chunk, a TTL of
 * hours, a store's revision past 2^31, a fraction, -0) is WIDE there and
 * kept in `wide`.
 */
const NUMS = 5;
const TIME = 0;
const LOCAL = 1;
const FENCE = 2;
const TTL = 3;
const MSG = 4;
const ABSENT = -0x80000000;
const WIDE = -0x7fffffff;
/**
 * Its names, in a Uint16Array per chunk: kind, actor, machine, key, peer
 * and reason, each the number of the name in the trace's list of names (0
 * for absent). A run names few things over and over; one that names more
 * than NARROW_NAMES things has every chunk made a Uint32Array from then on.
 */
const NAMES = 6;
const NARROW_NAMES = 0xffff;
/** Its objects, in an array per chunk: owner, believes, data (the recorder's own, shared by many events). */
const REFS = 3;

/**
 * A kept trace. Its first HEAD events are the recorder's objects; the rest
 * are held in columns, a chunk of events at a time: an event's times and
 * counts in an Int32Array, the numbers of its names in a Uint16Array, its
 * owner and its objects in an array, 56 bytes in all. An event becomes an
 * object again only when it is read.
 *
 * Kept as objects, every event of a long run outlived the young generation:
 * the collector copied each one twice on its way to the old one and marked
 * it there at every full collection, and a run that kept its trace spent
 * more time in the collector than in the simulation. In columns, what it
 * keeps is written in place and never moved; the typed arrays are not even
 * looked at by the collector. A name is a number into the trace's list of
 * names; the owner tokens and the data objects are the recorder's own,
 * shared between events, so they cost one reference each. Every byte
 * counts: on the machine the bench runs on, a page of memory touched for
 * the first time costs about 15 µs.
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
  private readonly nums: Int32Array[] = [];
  /** The true time of each chunk's first event: its events' times are counted from it. Never -0 (see `exact`). */
  private readonly base: number[] = [];
  private names: Array<Uint16Array | Uint32Array> = [];
  private readonly refs: unknown[][] = [];
  /** The names the columns number, from 1; and the number of each. */
  private readonly nameList: Array<string | undefined> = [undefined];
  private readonly nameNumber = new Map<string, number>();
  /** Each actor's number, with its machine's (see `push`). */
  private readonly actors = new Map<string, { readonly actor: number; machineName: string; machine: number }>();
  private lastKey: string | undefined;
  private lastKeyNumber = 0;
  private lastPeer: string | undefined;
  private lastPeerNumber = 0;
  /** The numbers a column could not give back exactly, by event and column (`index * NUMS + column`): see NUMS. */
  private readonly wide = new Map<number, number>();
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
    const timeUs = e.timeUs;
    if (at === 0) {
      // Made at full size and written by index: a push of several values at once is not one V8 compiles inline.
      this.nums.push(new Int32Array(CHUNK * NUMS));
      this.names.push(this.nameList.length > NARROW_NAMES ? new Uint32Array(CHUNK * NAMES) : new Uint16Array(CHUNK * NAMES));
      this.refs.push(new Array<unknown>(CHUNK * REFS));
      this.base.push(timeUs === 0 ? 0 : timeUs);
    }
    const n = this.nums[this.nums.length - 1]!;
    const o = at * NUMS;
    n[o + TIME] = this.exact(timeUs, this.base[this.base.length - 1]!, i, TIME);
    const localUs = e.localUs;
    n[o + LOCAL] = localUs === undefined ? ABSENT : this.exact(localUs, timeUs, i, LOCAL);
    n[o + FENCE] = this.int(e.fence, i, FENCE);
    n[o + TTL] = this.int(e.ttlUs, i, TTL);
    n[o + MSG] = this.int(e.msg, i, MSG);
    // The numbers of the names first: one may be the first past NARROW_NAMES, which makes every chunk wide.
    const kind = this.number(e.kind);
    // The actor's number and its machine's, found with one look-up: an actor records on one machine, as a rule.
    let a = this.actors.get(e.actor);
    if (a === undefined) {
      a = { actor: this.number(e.actor), machineName: e.machine, machine: this.number(e.machine) };
      this.actors.set(e.actor, a);
    } else if (a.machineName !== e.machine) {
      a.machineName = e.machine;
      a.machine = this.number(e.machine);
    }
    // Key, peer and reason are most often the last event's again: compared before they are looked up.
    const key = e.key;
    if (key !== this.lastKey) {
      this.lastKey = key;
      this.lastKeyNumber = key === undefined ? 0 : this.number(key);
    }
    const peer = e.peer;
    if (peer !== this.lastPeer) {
      this.lastPeer = peer;
      this.lastPeerNumber = peer === undefined ? 0 : this.number(peer);
    }
    const reason = e.reason === undefined ? 0 : this.number(e.reason);
    const w = this.names[this.names.length - 1]!;
    const q = at * NAMES;
    w[q] = kind;
    w[q + 1] = a.actor;
    w[q + 2] = a.machine;
    w[q + 3] = this.lastKeyNumber;
    w[q + 4] = this.lastPeerNumber;
    w[q + 5] = reason;
    const r = this.refs[this.refs.length - 1]!;
    const p = at * REFS;
    r[p] = e.owner;
    r[p + 1] = e.believes;
    r[p + 2] = e.data;
  }

  /** The number of `name` in the list of names, given it at its first use. */
  private number(name: string): number {
    let k = this.nameNumber.get(name);
    if (k === undefined) {
      k = this.nameList.length;
      this.nameList.push(name);
      this.nameNumber.set(name, k);
      if (k === NARROW_NAMES + 1) this.names = this.names.map((w) => Uint32Array.from(w));
    }
    return k;
  }

  /** What column `column` of event `i` holds for the count `x`: itself, ABSENT, or WIDE with `x` kept in `wide`. */
  private int(x: number | undefined, i: number, column: number): number {
    if (x === undefined) return ABSENT;
    // -0 is wide too: 0 would read back as another number to Object.is.
    if ((x | 0) === x && x !== ABSENT && x !== WIDE && (x !== 0 || 1 / x > 0)) return x;
    this.wide.set(i * NUMS + column, x);
    return WIDE;
  }

  /**
   * What column `column` of event `i` holds for `x`, counted from `from`: the
   * difference, if `from` plus it gives `x` back exactly (Object.is: a -0,
   * a fraction or a sum past 2^53 does not), else WIDE with `x` in `wide`.
   */
  private exact(x: number, from: number, i: number, column: number): number {
    const d = x - from;
    if ((d | 0) === d && d !== ABSENT && d !== WIDE) {
      const back = from + d;
      if (back === x && (x !== 0 || 1 / x === 1 / back)) return d;
    }
    this.wide.set(i * NUMS + column, x);
    return WIDE;
  }

  /** The count column `column` of event `i` holds as `v` (see `int`). */
  private countAt(v: number, i: number, column: number): number | undefined {
    if (v === ABSENT) return undefined;
    return v === WIDE ? this.wide.get(i * NUMS + column) : v;
  }

  /** The number column `column` of event `i` holds as `v`, counted from `from` (see `exact`). */
  private exactAt(v: number, from: number, i: number, column: number): number {
    return v === WIDE ? this.wide.get(i * NUMS + column)! : from + v;
  }

  /** The kind of event `i`, without making the event. */
  kindAt(i: number): string {
    if (i < HEAD) return this.objects[i]!.kind;
    const j = i - HEAD;
    return this.nameList[this.names[Math.floor(j / CHUNK)]![(j % CHUNK) * NAMES]!]!;
  }

  /** The virtual time of event `i`, without making the event. */
  timeAt(i: number): number {
    if (i < HEAD) return this.objects[i]!.timeUs;
    const j = i - HEAD;
    const c = Math.floor(j / CHUNK);
    return this.exactAt(this.nums[c]![(j % CHUNK) * NUMS + TIME]!, this.base[c]!, i, TIME);
  }

  /** Event `i`: the object kept for it, if there is one, else a new object equal to the one recorded. */
  at(i: number): TraceEvent {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no event ${i} in a trace of ${this.count}`);
    if (i < this.objects.length) return this.objects[i]!;
    const j = i - HEAD;
    const c = Math.floor(j / CHUNK);
    const at = j % CHUNK;
    const n = this.nums[c]!;
    const w = this.names[c]!;
    const r = this.refs[c]!;
    const o = at * NUMS;
    const q = at * NAMES;
    const p = at * REFS;
    const names = this.nameList;
    const timeUs = this.exactAt(n[o + TIME]!, this.base[c]!, i, TIME);
    const local = n[o + LOCAL]!;
    // Every field, in the recorder's order, undefined where absent: the same object shape and the same bytes.
    return {
      seq: i,
      timeUs,
      kind: names[w[q]!]!,
      actor: names[w[q + 1]!]!,
      machine: names[w[q + 2]!]!,
      localUs: local === ABSENT ? undefined : this.exactAt(local, timeUs, i, LOCAL),
      key: names[w[q + 3]!],
      owner: r[p] as string | undefined,
      fence: this.countAt(n[o + FENCE]!, i, FENCE),
      ttlUs: this.countAt(n[o + TTL]!, i, TTL),
      peer: names[w[q + 4]!],
      msg: this.countAt(n[o + MSG]!, i, MSG),
      reason: names[w[q + 5]!],
      believes: r[p + 1] as Belief | undefined,
      data: r[p + 2] as Record<string, JsonValue> | undefined,
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
