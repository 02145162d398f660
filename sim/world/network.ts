import type { Rng, RngStreams } from '../kernel/rng.js';
import type { LatencyDistribution } from '../scenario/types.js';
import type { Machine } from './machine.js';

/** Latency between two processes on the same machine (loopback), in microseconds. */
export const LOOPBACK_US = 50;

export interface NetworkConfig {
  readonly latencyMinUs: number;
  readonly latencyMaxUs: number;
  /** How latencies spread between the bounds; uniform when not given. */
  readonly distribution?: LatencyDistribution;
  /** Probability that a message between two machines is dropped. */
  readonly loss: number;
}

interface Partition {
  readonly id: number;
  /** Each listed machine's group index; machines in no group reach everyone. */
  readonly groupOf: ReadonlyMap<string, number>;
}

interface Spike {
  readonly id: number;
  readonly extraUs: number;
  /** Machines whose traffic is slowed; undefined means every machine. */
  readonly machines: ReadonlySet<string> | undefined;
}

export type Delivery = { readonly delivered: true; readonly delayUs: number } | { readonly delivered: false; readonly reason: 'partition' | 'loss' };

/** `delayUs` answers for a message cut off by a partition, or dropped at random. */
export const CUT = -1;
export const DROPPED = -2;

/**
 * Decides, for each message, whether it arrives and how long it takes.
 * Latency is drawn from one seeded stream per sending machine.
 */
export class Network {
  private readonly partitions: Partition[] = [];
  private readonly spikes: Spike[] = [];
  private readonly senderRng = new Map<string, Rng>();

  constructor(
    private readonly config: NetworkConfig,
    private readonly streams: RngStreams,
  ) {}

  /** Whether `a` and `b` can reach each other now. */
  connected(a: string, b: string): boolean {
    if (a === b) return true;
    for (const p of this.partitions) {
      const ga = p.groupOf.get(a);
      const gb = p.groupOf.get(b);
      if (ga !== undefined && gb !== undefined && ga !== gb) return false;
    }
    return true;
  }

  /** Decides the fate of one message sent now from machine `from` to machine `to`. */
  send(from: string, to: string): Delivery {
    const d = this.delayUs(from, to);
    if (d === CUT) return { delivered: false, reason: 'partition' };
    if (d === DROPPED) return { delivered: false, reason: 'loss' };
    return { delivered: true, delayUs: d };
  }

  /**
   * The same decision without allocating, for the hot path: the latency in
   * microseconds, or CUT, or DROPPED. `drawFor` names the machine whose stream
   * (or the machine itself) supplies the draw: a reply draws from its requester's stream, so a run
   * seeds one stream per machine that starts conversations, not per server
   * that answers them.
   */
  delayUs(from: string, to: string, drawFor: string | Machine = from): number {
    if (this.partitions.length > 0 && !this.connected(from, to)) return CUT;
    let delayUs = LOOPBACK_US;
    if (from !== to) {
      const rng = typeof drawFor === 'string' ? this.rngFor(drawFor) : (drawFor.netRng ??= this.rngFor(drawFor.name));
      if (rng.chance(this.config.loss)) return DROPPED;
      delayUs = drawLatency(rng, this.config);
    }
    for (const s of this.spikes) {
      if (s.machines === undefined || s.machines.has(from) || s.machines.has(to)) delayUs += s.extraUs;
    }
    return delayUs;
  }

  /** `delayUs` between machines: the draw's stream is kept on the machine, not looked up by name at every message. */
  delayFrom(from: Machine, to: Machine, drawFor: Machine): number {
    return this.delayUs(from.name, to.name, drawFor);
  }

  addPartition(id: number, groups: ReadonlyArray<ReadonlyArray<string>>): void {
    const groupOf = new Map<string, number>();
    groups.forEach((g, i) => g.forEach((m) => groupOf.set(m, i)));
    this.partitions.push({ id, groupOf });
  }

  removePartition(id: number): void {
    const i = this.partitions.findIndex((p) => p.id === id);
    if (i !== -1) this.partitions.splice(i, 1);
  }

  addSpike(id: number, extraUs: number, machines: ReadonlyArray<string> | undefined): void {
    this.spikes.push({ id, extraUs, machines: machines === undefined ? undefined : new Set(machines) });
  }

  removeSpike(id: number): void {
    const i = this.spikes.findIndex((s) => s.id === id);
    if (i !== -1) this.spikes.splice(i, 1);
  }

  /**
   * One stream per sending machine: traffic from one machine never shifts the
   * draws of another, and a run seeds as many streams as it has senders, not
   * sender-receiver pairs (seeding is most of the cost of a short run).
   */
  private rngFor(from: string): Rng {
    let rng = this.senderRng.get(from);
    if (rng === undefined) {
      rng = this.streams.stream(`net:${from}`);
      this.senderRng.set(from, rng);
    }
    return rng;
  }
}

/**
 * One latency in whole microseconds within [min, max]. Only arithmetic, no
 * Math.log or Math.cos, so every JavaScript engine draws the same numbers:
 * `normal` sums twelve uniforms (Irwin–Hall, σ a sixth of the range, clamped);
 * `long-tail` is the range times u⁴, mostly near the minimum with a few slow
 * messages up to the maximum (mean a fifth of the range).
 */
export function drawLatency(rng: Rng, config: NetworkConfig): number {
  const min = config.latencyMinUs;
  const max = config.latencyMaxUs;
  const span = max - min;
  switch (config.distribution ?? 'uniform') {
    case 'uniform':
      return rng.int(min, max);
    case 'normal': {
      let z = -6;
      for (let i = 0; i < 12; i++) z += rng.next();
      return clamp(Math.round(min + span / 2 + (z * span) / 6), min, max);
    }
    case 'long-tail': {
      const u = rng.next();
      return min + Math.round(span * u * u * u * u);
    }
  }
}

function clamp(x: number, min: number, max: number): number {
  return x < min ? min : x > max ? max : x;
}
