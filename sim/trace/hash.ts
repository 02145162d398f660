import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils.js';
import type { JsonValue, TraceDocument, TraceEvent } from './types.js';

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

/** JSON with every object's keys sorted, at every depth: the same bytes whatever the key order of the input. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** The sha256, in hex, of a value's canonical JSON: one fingerprint for equal content, whatever its key order. */
export function canonicalHash(value: unknown): string {
  return bytesToHex(sha256(utf8ToBytes(canonicalJson(value))));
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
  private readonly h = sha256.create();
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
    return bytesToHex(this.h.digest());
  }

  private line(text: string): void {
    this.pending += `${text}\n`;
    if (this.pending.length > 1 << 16) this.flush();
  }

  private flush(): void {
    if (this.pending === '') return;
    this.h.update(utf8ToBytes(this.pending));
    this.pending = '';
  }
}

/** An event as canonical JSON, written field by field: the trace's own key order is not trusted, nested keys are sorted. */
function canonicalEvent(e: TraceEvent): string {
  // Top-level fields sorted by name: actor, believes, data, fence, key, kind, localUs, machine, msg, owner, peer, reason, seq, timeUs, ttlUs.
  let s = `{"actor":${JSON.stringify(e.actor)}`;
  if (e.believes !== undefined) s += `,"believes":${canonicalJson(e.believes)}`;
  if (e.data !== undefined) s += `,"data":${canonicalJson(e.data as Record<string, JsonValue>)}`;
  if (e.fence !== undefined) s += `,"fence":${e.fence}`;
  if (e.key !== undefined) s += `,"key":${JSON.stringify(e.key)}`;
  s += `,"kind":${JSON.stringify(e.kind)}`;
  if (e.localUs !== undefined) s += `,"localUs":${e.localUs}`;
  s += `,"machine":${JSON.stringify(e.machine)}`;
  if (e.msg !== undefined) s += `,"msg":${e.msg}`;
  if (e.owner !== undefined) s += `,"owner":${JSON.stringify(e.owner)}`;
  if (e.peer !== undefined) s += `,"peer":${JSON.stringify(e.peer)}`;
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
