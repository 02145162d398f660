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
 * Its names and its objects, as numbers in a Uint16Array per chunk: kind,
 * actor, machine, key, peer and reason, each the number of the name in the
 * trace's list of names; then owner, believes and data, each the number of
 * the object in its chunk's list of objects (0 for absent, in both). A run
 * names few things over and over; one that names more than NARROW_NAMES
 * things has every chunk made a Uint32Array from then on. A chunk lists at
 * most REFS objects an event, so their numbers always fit.
 */
const NAMES = 6;
const REFS = 3;
const WORDS = NAMES + REFS;
const OWNER = NAMES;
const BELIEVES = NAMES + 1;
const DATA = NAMES + 2;
const NARROW_NAMES = 0xffff;

/**
 * What the columns remember of an actor: its number and its machine's, and
 * the objects its last events named with their numbers in chunk `chunk`'s
 * list. An actor names the same owner, belief and data again and again (a
 * waiter's polls), so each is listed once per chunk, not once per event.
 */
interface ActorColumns {
  readonly actor: number;
  machineName: string;
  machine: number;
  chunk: number;
  owner: unknown;
  ownerNumber: number;
  believes: unknown;
  believesNumber: number;
  data: unknown;
  dataNumber: number;
}

/**
 * A kept trace. Its first HEAD events are the recorder's objects; the rest
 * are held in columns, a chunk of events at a time: an event's times and
 * counts in an Int32Array, the numbers of its names and of its objects
 * (owner, believes, data) in a Uint16Array, 38 bytes in all, and each
 * object once in its chunk's list for as long as its actor names it again.
 * An event becomes an object again only when it is read.
 *
 * Kept as objects, every event of a long run outlived the young generation:
 * the collector copied each one twice on its way to the old one and marked
 * it there at every full collection, and a run that kept its trace spent
 * more time in the collector than in the simulation. In columns, what it
 * keeps is written in place and never moved; the typed arrays are not even
 * looked at by the collector. A name is a number into the trace's list of
 * names; an object, the recorder's own, is a number into its chunk's list,
 * and the same object read back. Every byte
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
  /** The true time of each chunk's first event: its events' times are counted from it. Never -0 (see `numberIn`). */
  private readonly base: number[] = [];
  private words: Array<Uint16Array | Uint32Array> = [];
  /** Each chunk's list of the objects its events name (see WORDS), from 1. */
  private readonly objectLists: unknown[][] = [];
  /** The names the columns number, from 1; and the number of each. */
  private readonly nameList: Array<string | undefined> = [undefined];
  private readonly nameNumber = new Map<string, number>();
  /** What the columns remember of each actor (see ActorColumns). */
  private readonly actors = new Map<string, ActorColumns>();
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
      this.words.push(this.nameList.length > NARROW_NAMES ? new Uint32Array(CHUNK * WORDS) : new Uint16Array(CHUNK * WORDS));
      this.objectLists.push([undefined]);
      this.base.push(timeUs === 0 ? 0 : timeUs);
    }
    const chunk = this.nums.length - 1;
    const n = this.nums[chunk]!;
    const o = at * NUMS;
    n[o + TIME] = this.numberIn(timeUs, this.base[chunk]!, i, TIME);
    n[o + LOCAL] = this.numberIn(e.localUs, timeUs, i, LOCAL);
    n[o + FENCE] = this.numberIn(e.fence, 0, i, FENCE);
    n[o + TTL] = this.numberIn(e.ttlUs, 0, i, TTL);
    n[o + MSG] = this.numberIn(e.msg, 0, i, MSG);
    // The numbers of the names first: one may be the first past NARROW_NAMES, which makes every chunk wide.
    const kind = this.number(e.kind);
    // The actor's number and its machine's, found with one look-up: an actor records on one machine, as a rule.
    let a = this.actors.get(e.actor);
    if (a === undefined) {
      a = {
        actor: this.number(e.actor),
        machineName: e.machine,
        machine: this.number(e.machine),
        chunk,
        owner: undefined,
        ownerNumber: 0,
        believes: undefined,
        believesNumber: 0,
        data: undefined,
        dataNumber: 0,
      };
      this.actors.set(e.actor, a);
    } else if (a.machineName !== e.machine) {
      a.machineName = e.machine;
      a.machine = this.number(e.machine);
    }
    // Its objects, listed in this chunk unless they are what it named last here.
    if (a.chunk !== chunk) {
      a.chunk = chunk;
      a.owner = a.believes = a.data = undefined;
      a.ownerNumber = a.believesNumber = a.dataNumber = 0;
    }
    const list = this.objectLists[chunk]!;
    if (e.owner !== a.owner) {
      a.owner = e.owner;
      a.ownerNumber = e.owner === undefined ? 0 : list.push(e.owner) - 1;
    }
    if (e.believes !== a.believes) {
      a.believes = e.believes;
      a.believesNumber = e.believes === undefined ? 0 : list.push(e.believes) - 1;
    }
    if (e.data !== a.data) {
      a.data = e.data;
      a.dataNumber = e.data === undefined ? 0 : list.push(e.data) - 1;
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
    const w = this.words[chunk]!;
    const q = at * WORDS;
    w[q] = kind;
    w[q + 1] = a.actor;
    w[q + 2] = a.machine;
    w[q + 3] = this.lastKeyNumber;
    w[q + 4] = this.lastPeerNumber;
    w[q + 5] = reason;
    w[q + OWNER] = a.ownerNumber;
    w[q + BELIEVES] = a.believesNumber;
    w[q + DATA] = a.dataNumber;
  }

  /** The number of `name` in the list of names, given it at its first use. */
  private number(name: string): number {
    let k = this.nameNumber.get(name);
    if (k === undefined) {
      k = this.nameList.length;
      this.nameList.push(name);
      this.nameNumber.set(name, k);
      if (k === NARROW_NAMES + 1) this.words = this.words.map((w) => Uint32Array.from(w));
    }
    return k;
  }

  /**
   * What column `column` of event `i` holds for `x`, counted from `from` (0
   * for a count): ABSENT if it is absent; the difference, if `from` plus it
   * gives `x` back exactly (Object.is: a -0, a fraction or a sum past 2^53
   * does not); else WIDE, with `x` kept in `wide`.
   */
  private numberIn(x: number | undefined, from: number, i: number, column: number): number {
    if (x === undefined) return ABSENT;
    const d = x - from;
    if ((d | 0) === d && d !== ABSENT && d !== WIDE) {
      const back = from + d;
      if (back === x && (x !== 0 || 1 / x === 1 / back)) return d;
    }
    this.wide.set(i * NUMS + column, x);
    return WIDE;
  }

  /** The number column `column` of event `i` holds as `v`, counted from `from` (see `numberIn`). */
  private numberAt(v: number, from: number, i: number, column: number): number | undefined {
    if (v === ABSENT) return undefined;
    return v === WIDE ? this.wide.get(i * NUMS + column) : from + v;
  }

  /** The kind of event `i`, without making the event. */
  kindAt(i: number): string {
    if (i < HEAD) return this.objects[i]!.kind;
    const j = i - HEAD;
    return this.nameList[this.words[Math.floor(j / CHUNK)]![(j % CHUNK) * WORDS]!]!;
  }

  /** The virtual time of event `i`, without making the event. */
  timeAt(i: number): number {
    if (i < HEAD) return this.objects[i]!.timeUs;
    const j = i - HEAD;
    const c = Math.floor(j / CHUNK);
    return this.numberAt(this.nums[c]![(j % CHUNK) * NUMS + TIME]!, this.base[c]!, i, TIME)!;
  }

  /** Event `i`: the object kept for it, if there is one, else a new object equal to the one recorded. */
  at(i: number): TraceEvent {
    if (!(i >= 0 && i < this.count)) throw new RangeError(`no event ${i} in a trace of ${this.count}`);
    if (i < this.objects.length) return this.objects[i]!;
    const j = i - HEAD;
    const c = Math.floor(j / CHUNK);
    const at = j % CHUNK;
    const n = this.nums[c]!;
    const w = this.words[c]!;
    const list = this.objectLists[c]!;
    const o = at * NUMS;
    const q = at * WORDS;
    const names = this.nameList;
    const timeUs = this.numberAt(n[o + TIME]!, this.base[c]!, i, TIME)!;
    // Every field, in the recorder's order, undefined where absent: the same object shape and the same bytes.
    return {
      seq: i,
      timeUs,
      kind: names[w[q]!]!,
      actor: names[w[q + 1]!]!,
      machine: names[w[q + 2]!]!,
      localUs: this.numberAt(n[o + LOCAL]!, timeUs, i, LOCAL),
      key: names[w[q + 3]!],
      owner: list[w[q + OWNER]!] as string | undefined,
      fence: this.numberAt(n[o + FENCE]!, 0, i, FENCE),
      ttlUs: this.numberAt(n[o + TTL]!, 0, i, TTL),
      peer: names[w[q + 4]!],
      msg: this.numberAt(n[o + MSG]!, 0, i, MSG),
      reason: names[w[q + 5]!],
      believes: list[w[q + BELIEVES]!] as Belief | undefined,
      data: list[w[q + DATA]!] as Record<string, JsonValue> | undefined,
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
