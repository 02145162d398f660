import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { Belief, JsonValue, TraceDocument, TraceEvent } from './types.js';

/*
 * The run hash: a fingerprint of the run alone — schema version, source,
 * scenario, seed and events — and nothing derived from it. The verdict, its
 * sentences and the kernel's stop counters are left out, so rewording a
 * sentence or counting timers differently changes no pinned run, while any
 * change to what happened does.
 *
 * What is hashed: one line of canonical JSON for {schema, source, scenario,
 * seed}, then one line per event, each ending in "\n". Canonical JSON has no
 * white space, object keys in code-point order at every depth, and numbers
 * as JavaScript writes them. Lines are hashed as they come, so a run whose
 * events are never kept is hashed exactly like a stored trace.
 */

/** A running sha256: text in, UTF-8 encoded; the digest out, in hex. */
export interface Sha256 {
  update(text: string): void;
  digestHex(): string;
}

/**
 * Where sha256s come from. The portable one (@noble/hashes, plain
 * JavaScript) serves everywhere, the browser included; Node's own is about
 * ten times faster on a trace, and the Node entry points (the package, the
 * command, locklab/testing; sim/cli/node-hash.ts) install it with
 * `useSha256`. The digests are the same bytes either way.
 */
export const portableSha256 = (): Sha256 => {
  const h = sha256.create();
  return {
    update: (text) => void h.update(utf8ToBytes(text)),
    digestHex: () => bytesToHex(h.digest()),
  };
};
let newSha256: () => Sha256 = portableSha256;

/** Makes every run hash and content hash from now on with `make`, which must give sha256 digests. */
export function useSha256(make: () => Sha256): void {
  newSha256 = make;
}

/** JSON with every object's keys sorted, at every depth: the same bytes whatever the key order of the input. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  // Loops rather than map and join: every event's belief and data pass through here when a run is hashed.
  if (Array.isArray(value)) {
    let s = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      s += `${i === 0 ? '' : ','}${v === undefined ? 'null' : canonicalJson(v)}`;
    }
    return `${s}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj).sort();
  let s = '{';
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    s += `${s.length === 1 ? '' : ','}${quoted(k)}:${canonicalJson(v)}`;
  }
  return `${s}}`;
}

/**
 * `JSON.stringify` of a string, remembered for the few strings that recur
 * in every event (kinds, actors, machines, keys, field names); an owner token
 * or a reason is written afresh, so the memory stays bounded.
 */
const QUOTED = new Map<string, string>();
const QUOTED_MAX = 4096;
function quoted(text: string): string {
  let q = QUOTED.get(text);
  if (q === undefined) {
    q = JSON.stringify(text);
    if (QUOTED.size < QUOTED_MAX) QUOTED.set(text, q);
  }
  return q;
}

/** A belief as canonical JSON: its five fields written in order, unless it has others (a hand-written trace), which the general writer sorts in. */
function canonicalBelief(b: Belief): string {
  let known = 1;
  let s = '{';
  if (b.fence !== undefined) {
    s += `"fence":${canonicalJson(b.fence)},`;
    known++;
  }
  s += `"holds":${canonicalJson(b.holds)}`;
  if (b.owner !== undefined) {
    s += `,"owner":${canonicalJson(b.owner)}`;
    known++;
  }
  if (b.shared !== undefined) {
    s += `,"shared":${canonicalJson(b.shared)}`;
    known++;
  }
  if (b.ttlLeftUs !== undefined) {
    s += `,"ttlLeftUs":${canonicalJson(b.ttlLeftUs)}`;
    known++;
  }
  if (countDefined(b) !== known) return canonicalJson(b);
  return `${s}}`;
}

/** How many of an object's own keys have a value. */
function countDefined(obj: object): number {
  let n = 0;
  for (const k in obj) if (Object.hasOwn(obj, k) && (obj as Record<string, unknown>)[k] !== undefined) n++;
  return n;
}

/** The sha256, in hex, of a value's canonical JSON: one fingerprint for equal content, whatever its key order. */
export function canonicalHash(value: unknown): string {
  const h = newSha256();
  h.update(canonicalJson(value));
  return h.digestHex();
}

/** The header line's content: everything of the run but its events. */
export interface RunHeader {
  readonly schema: string;
  readonly source: 'sim' | 'real';
  readonly scenario: unknown;
  readonly seed: number;
}

/** Hashes a run as its events arrive. */
export class RunHasher {
  private readonly h = newSha256();
  /** Lines waiting to be hashed: hashing in large chunks is many times faster than line by line. */
  private pending = '';

  constructor(header: RunHeader) {
    this.line(canonicalJson({ schema: header.schema, source: header.source, scenario: header.scenario, seed: header.seed }));
  }

  push(e: TraceEvent): void {
    this.line(canonicalEvent(e));
  }

  digest(): string {
    this.flush();
    return this.h.digestHex();
  }

  private line(text: string): void {
    this.pending += `${text}\n`;
    if (this.pending.length > 1 << 16) this.flush();
  }

  private flush(): void {
    if (this.pending === '') return;
    this.h.update(this.pending);
    this.pending = '';
  }
}

/** An event as canonical JSON, written field by field: the trace's own key order is not trusted, nested keys are sorted. */
function canonicalEvent(e: TraceEvent): string {
  // Top-level fields sorted by name: actor, believes, data, fence, key, kind, localUs, machine, msg, owner, peer, reason, seq, timeUs, ttlUs.
  let s = `{"actor":${quoted(e.actor)}`;
  if (e.believes !== undefined) s += `,"believes":${canonicalBelief(e.believes)}`;
  if (e.data !== undefined) s += `,"data":${canonicalJson(e.data as Record<string, JsonValue>)}`;
  if (e.fence !== undefined) s += `,"fence":${e.fence}`;
  if (e.key !== undefined) s += `,"key":${quoted(e.key)}`;
  s += `,"kind":${quoted(e.kind)}`;
  if (e.localUs !== undefined) s += `,"localUs":${e.localUs}`;
  s += `,"machine":${quoted(e.machine)}`;
  if (e.msg !== undefined) s += `,"msg":${e.msg}`;
  if (e.owner !== undefined) s += `,"owner":${JSON.stringify(e.owner)}`;
  if (e.peer !== undefined) s += `,"peer":${quoted(e.peer)}`;
  if (e.reason !== undefined) s += `,"reason":${JSON.stringify(e.reason)}`;
  s += `,"seq":${e.seq},"timeUs":${e.timeUs}`;
  if (e.ttlUs !== undefined) s += `,"ttlUs":${e.ttlUs}`;
  return `${s}}`;
}

/** The run hash of a whole trace. */
export function runHash(doc: Pick<TraceDocument, 'schema' | 'source' | 'scenario' | 'seed' | 'events'>): string {
  const h = new RunHasher(doc);
  for (const e of doc.events) h.push(e);
  return h.digest();
}
