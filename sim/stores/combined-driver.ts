import type { StoreSpecBase } from '../scenario/types.js';
import type { Script } from '../runtime/types.js';
import { missedData } from './redlock-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, StepResult } from './protocol.js';

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
  constructor(
    private readonly drivers: readonly LockDriver[],
    private readonly strategy: Strategy,
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
    for (const d of this.drivers) {
      const leftUs = a.ttlUs - (io.localNow() - startLocal);
      if (leftUs <= 0) {
        ranOut = true;
        break;
      }
      asked++;
      // Written out rather than spread: spreads are slow on this path.
      const r = yield* d.acquire(io, { key: a.key, owner: a.owner, attempt: a.attempt, ttlUs: leftUs, shared: false, waitUs: undefined });
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
    // Symfony's checkNotExpired: a key whose lifetime ran out while the stores were asked is not acquired.
    if (io.localNow() - startLocal >= a.ttlUs) ranOut = true;
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
    if (!ranOut && strategyMet(this.strategy, successes, this.n)) return { status: 'ok', msg: lastMsg };
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
