import type { StoreSpecBase } from '../scenario/types.js';
import type { Script } from '../runtime/types.js';
import { missedData } from './redlock-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, StepResult } from './protocol.js';

export type Strategy = 'consensus' | 'unanimous';

export interface CombinedSpec extends StoreSpecBase {
  kind: 'combined';
  /** The name of the group the stores form (the checker's unit of truth). */
  name: string;
  strategy: Strategy;
  /** Each a store of another kind, normalized by that kind, with exactly one node. */
  stores: StoreSpecBase[];
}

/** Symfony ConsensusStrategy / UnanimousStrategy. */
export function strategyMet(strategy: Strategy, successes: number, stores: number): boolean {
  return strategy === 'unanimous' ? successes === stores : successes > stores / 2;
}

export function strategyCanBeMet(strategy: Strategy, failures: number, stores: number): boolean {
  return strategy === 'unanimous' ? failures === 0 : failures < stores / 2;
}

/** How many stores must hold the key for the strategy to be met: the checker's quorum. */
export function strategyQuorum(strategy: Strategy, stores: number): number {
  return strategy === 'unanimous' ? stores : Math.floor(stores / 2) + 1;
}

/**
 * The client side of CombinedStore: each store's own driver, called one
 * after another. `save` stops as soon as the strategy can no longer be met,
 * passes each next store the TTL left after the time already spent, fails if
 * that time has run out, and after a failed attempt deletes the key from
 * every store. Symfony passes the reduced TTL in `putOffExpiration` (which
 * `Lock::acquire` calls right after `save`); here the first save already
 * carries it, which sets the same expiries without the extra round.
 */
export class CombinedDriver implements LockDriver {
  /** CombinedStore catches every store's exception and counts it as that store's failure. */
  readonly library = { store: 'CombinedStore', exception: 'LockStorageException' };

  constructor(
    private drivers: readonly LockDriver[],
    private strategy: Strategy,
    /** Which stores take shared locks: saveRead() asks those for one and the others for an ordinary lock. */
    private shares: readonly boolean[],
    /** A deploy gives the client other stores or another strategy (all processes must share one configuration). */
    private readonly reconfigureWith?: (patch: Record<string, unknown>) => { drivers: LockDriver[]; shares: boolean[]; strategy: Strategy } | undefined,
  ) {}

  private get n(): number {
    return this.drivers.length;
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const startLocal = io.localNow();
    let successes = 0;
    let failures = 0;
    let asked = 0;
    let expiring = false;
    let lastMsg = 0;
    let holder: string | null | undefined;
    let ranOut = false;
    for (let i = 0; i < this.drivers.length; i++) {
      const d = this.drivers[i]!;
      const leftUs = a.ttlUs - (io.localNow() - startLocal);
      if (leftUs <= 0) {
        ranOut = true;
        break;
      }
      asked++;
      // Written out rather than spread: spreads are slow on this path.
      const r = yield* d.acquire(io, {
        key: a.key,
        owner: a.owner,
        attempt: a.attempt,
        ttlUs: leftUs,
        shared: a.shared && this.shares[i] === true,
        waitUs: undefined,
      });
      lastMsg = r.msg;
      if (r.status === 'ok') {
        successes++;
        if (r.expiresLocalUs !== null) expiring = true;
      } else {
        failures++;
        if (r.status === 'denied' && holder === undefined && r.holder !== undefined && r.holder !== null) holder = r.holder;
      }
      if (!strategyCanBeMet(this.strategy, failures, this.n)) break;
    }
    // Symfony's checkNotExpired comes first: a key whose lifetime ran out while the stores were asked is not a conflict
    // but an expired lock, which the Lock deletes before it throws LockExpiredException.
    if (io.localNow() - startLocal >= a.ttlUs) ranOut = true;
    if (ranOut && expiring) return { status: 'ok', msg: lastMsg, expiresLocalUs: startLocal + a.ttlUs };
    if (!ranOut && strategyMet(this.strategy, successes, this.n)) {
      return { status: 'ok', msg: lastMsg, expiresLocalUs: expiring ? startLocal + a.ttlUs : null };
    }
    const reason = ranOut
      ? 'the TTL ran out while the stores were asked'
      : `the ${this.strategy} strategy cannot be met: ${failures} of ${this.n} stores failed`;
    io.emit('quorum.missed', {
      owner: a.owner,
      reason,
      data: missedData(successes, this.n, strategyQuorum(this.strategy, this.n), 'stores', { asked, strategy: this.strategy }),
    });
    yield* this.deleteEverywhere(io, { key: a.key, owner: a.owner, fence: undefined });
    return { status: 'denied', msg: lastMsg, holder, reason };
  }

  /** `putOffExpiration`: the same walk, each store given the TTL left; a failure deletes the key everywhere. */
  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const startLocal = io.localNow();
    let successes = 0;
    let failures = 0;
    let asked = 0;
    let lastMsg = 0;
    let ranOut = false;
    for (const d of this.drivers) {
      const leftUs = ttlUs - (io.localNow() - startLocal);
      if (leftUs <= 0) {
        ranOut = true;
        break;
      }
      asked++;
      const r = yield* d.refresh(io, lease, leftUs);
      lastMsg = r.msg;
      if (r.status === 'ok') successes++;
      else failures++;
      if (!strategyCanBeMet(this.strategy, failures, this.n)) break;
    }
    if (io.localNow() - startLocal >= ttlUs) ranOut = true;
    // As at acquire: an expired key is Lock's to delete, with LockExpiredException.
    if (ranOut) return { status: 'ok', msg: lastMsg, expiresLocalUs: startLocal + ttlUs };
    if (strategyMet(this.strategy, successes, this.n)) return { status: 'ok', msg: lastMsg };
    const reason = ranOut ? 'the TTL ran out while the stores were asked' : `the ${this.strategy} strategy cannot be met`;
    io.emit('quorum.missed', {
      owner: lease.owner,
      reason,
      data: missedData(successes, this.n, strategyQuorum(this.strategy, this.n), 'stores', { asked, strategy: this.strategy }),
    });
    yield* this.deleteEverywhere(io, lease);
    return { status: 'failed', msg: lastMsg, reason };
  }

  /** `delete`: every store in turn, whatever each answers; done when the strategy's count of stores confirmed it. */
  *release(io: ClientIo, lease: LeaseRef): Script<StepResult> {
    const { confirmed, lastMsg } = yield* this.deleteEverywhere(io, lease);
    if (strategyMet(this.strategy, confirmed, this.n)) return { status: 'ok', msg: lastMsg };
    return { status: 'failed', msg: lastMsg, reason: `deleted from ${confirmed} of ${this.n} stores` };
  }

  /** exists(): store after store until the strategy is met or can no longer be; a store that fails counts as a no. */
  *exists(io: ClientIo, lease: LeaseRef & { readonly shared: boolean }): Script<ExistsResult> {
    let yes = 0;
    let no = 0;
    let lastMsg = 0;
    for (let i = 0; i < this.drivers.length; i++) {
      const r = yield* this.drivers[i]!.exists(io, { ...lease, shared: lease.shared && this.shares[i] === true });
      lastMsg = r.msg;
      if (r.status === 'yes') yes++;
      else no++;
      if (strategyMet(this.strategy, yes, this.n)) return { status: 'yes', msg: lastMsg };
      if (!strategyCanBeMet(this.strategy, no, this.n)) return { status: 'no', msg: lastMsg };
    }
    return { status: 'no', msg: lastMsg };
  }

  fork(): LockDriver {
    return new CombinedDriver(
      this.drivers.map((d) => d.fork?.() ?? d),
      this.strategy,
      this.shares,
      this.reconfigureWith,
    );
  }

  reconfigure(patch: Record<string, unknown>): void {
    const next = this.reconfigureWith?.(patch);
    if (next !== undefined) {
      this.drivers = next.drivers;
      this.shares = next.shares;
      this.strategy = next.strategy;
      return;
    }
    for (const d of this.drivers) d.reconfigure?.(patch);
  }

  private *deleteEverywhere(io: ClientIo, lease: LeaseRef): Script<{ confirmed: number; lastMsg: number }> {
    let confirmed = 0;
    let lastMsg = 0;
    for (const d of this.drivers) {
      const r = yield* d.release(io, { key: lease.key, owner: lease.owner, fence: undefined }, 'token-checked');
      lastMsg = r.msg;
      if (r.status === 'ok') confirmed++;
    }
    return { confirmed, lastMsg };
  }
}
