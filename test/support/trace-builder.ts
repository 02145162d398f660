import type { JsonValue } from '../../sim/trace/types.js';
import type { Belief, TraceEvent } from '../../sim/trace/types.js';

/**
 * Writes traces by hand for checker tests: each helper appends one event in
 * the shape the simulator (or the real runner) records.
 */
export class TraceBuilder {
  readonly events: TraceEvent[] = [];

  private add(timeUs: number, kind: string, actor: string, extra: Partial<TraceEvent> = {}): this {
    this.events.push({ seq: this.events.length, timeUs, kind, actor, machine: actor === 'redis' || actor === 'resource' ? 'db' : `m-${actor}`, ...extra });
    return this;
  }

  believes(timeUs: number, client: string, owner: string | null, key = 'job'): this {
    const believes: Belief = owner === null ? { holds: false } : { holds: true, owner };
    return this.add(timeUs, owner === null ? 'release.request' : 'acquire.ok', client, { key, ...(owner === null ? {} : { owner }), believes });
  }

  /** Any client event, with what the client believes then (nothing unless `owner` is given). */
  client(timeUs: number, kind: string, client: string, extra: Partial<TraceEvent> = {}, believedOwner?: string): this {
    const believes: Belief = believedOwner === undefined ? { holds: false } : { holds: true, owner: believedOwner };
    return this.add(timeUs, kind, client, { key: 'job', believes, ...extra });
  }

  crash(timeUs: number, client: string): this {
    return this.add(timeUs, 'process.crash', client, { key: 'job', believes: { holds: false } });
  }

  granted(timeUs: number, owner: string, key = 'job', node = 'redis', data?: Record<string, JsonValue>): this {
    return this.add(timeUs, 'lock.granted', node, { key, owner, peer: owner.split(':')[0]!, ...(data === undefined ? {} : { data }) });
  }

  ended(
    timeUs: number,
    kind: 'lock.released' | 'lock.expired' | 'lock.deleted' | 'lock.overwritten' | 'lock.lost',
    owner: string,
    key = 'job',
    node = 'redis',
    data?: Record<string, JsonValue>,
  ): this {
    return this.add(timeUs, kind, node, { key, owner, peer: owner.split(':')[0]!, reason: kind.slice(5), ...(data === undefined ? {} : { data }) });
  }

  believesShared(timeUs: number, client: string, owner: string): this {
    return this.add(timeUs, 'acquire.ok', client, { key: 'job', owner, believes: { holds: true, owner, shared: true } });
  }

  write(timeUs: number, owner: string, accepted: boolean, fence?: number): this {
    return this.add(timeUs, accepted ? 'write.accepted' : 'write.rejected', 'resource', {
      owner,
      ...(fence === undefined ? {} : { fence }),
      peer: owner.split(':')[0]!,
    });
  }
}
