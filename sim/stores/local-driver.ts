import type { NodeRef, Script } from '../runtime/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, StepResult } from './protocol.js';

/**
 * The client side of a per-machine lock: every operation is a system call on
 * the client's own machine. `lockPath` turns the client's key into what the
 * kernel sees (a file path, a semaphore key), and may change with a deploy.
 *
 * Refreshing does nothing and always succeeds, as Symfony's FlockStore and
 * SemaphoreStore `putOffExpiration` do: the lock does not expire, and the
 * library never asks the kernel whether it still holds it.
 */
export class LocalDriver implements LockDriver {
  constructor(
    private readonly node: NodeRef,
    private lockPath: (key: string) => string,
    private readonly onReconfigure?: (patch: Record<string, unknown>) => ((key: string) => string) | undefined,
  ) {}

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op: LockOp = { op: 'acquire', key: this.lockPath(a.key), owner: a.owner, ttlUs: a.ttlUs, shared: a.shared, waitUs: a.waitUs };
    const data: Record<string, string | number | boolean> = { attempt: a.attempt, path: op.key };
    if (a.waitUs !== undefined) data.waitUs = a.waitUs ?? -1;
    if (a.shared) data.shared = true;
    const r = yield* io.request(this.node, op, 'acquire.request', { owner: a.owner, data }, waitTimeoutUs(io, a.waitUs));
    return acquireResult(r, null);
  }

  // eslint-disable-next-line require-yield -- a refresh of a lock that cannot expire makes no call at all
  *refresh(io: ClientIo, _lease: LeaseRef, _ttlUs: number): Script<StepResult> {
    return { status: 'ok', msg: io.newMsg() };
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const r = yield* io.request(this.node, { op: 'release', key: this.lockPath(lease.key), owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method },
    });
    return stepResult(r, 'not the owner');
  }

  reconfigure(patch: Record<string, unknown>): void {
    const next = this.onReconfigure?.(patch);
    if (next !== undefined) this.lockPath = next;
  }
}
