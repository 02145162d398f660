import type { NodeRef, Script } from '../runtime/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from './single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, StepResult } from './protocol.js';

/**
 * The client side of a per-machine lock: every operation is a system call on
 * the client's own machine. `lockPath` turns the client's key into what the
 * kernel sees (a file path, a semaphore key), and may change with a deploy.
 *
 * Refreshing does nothing and always succeeds, as Symfony's FlockStore and
 * SemaphoreStore `putOffExpiration` do: the lock does not expire. Their
 * `exists()` asks nothing either: it says whether the Key holds a file
 * handle (a semaphore resource), which it does from a successful save until
 * the delete — whatever happened to the file or the semaphore meanwhile.
 */
export class LocalDriver implements LockDriver {
  /** Owners whose Key holds a handle. */
  private readonly handles: Set<string>;

  constructor(
    private readonly node: NodeRef,
    private lockPath: (key: string) => string,
    readonly library: { readonly store: string; readonly exception: string },
    private readonly onReconfigure?: (patch: Record<string, unknown>) => ((key: string) => string) | undefined,
    handles?: ReadonlySet<string>,
  ) {
    this.handles = new Set(handles);
  }

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op: LockOp = { op: 'acquire', key: this.lockPath(a.key), owner: a.owner, ttlUs: a.ttlUs, shared: a.shared, waitUs: a.waitUs };
    const data: Record<string, string | number | boolean> = { attempt: a.attempt, path: op.key };
    if (a.waitUs !== undefined) data.waitUs = a.waitUs ?? -1;
    if (a.shared) data.shared = true;
    const r = yield* io.request(this.node, op, 'acquire.request', { owner: a.owner, data }, waitTimeoutUs(io, a.waitUs));
    const result = acquireResult(r, null);
    if (result.status === 'ok') this.handles.add(a.owner);
    return result;
  }

  // eslint-disable-next-line require-yield -- a refresh of a lock that cannot expire makes no call at all
  *refresh(io: ClientIo, _lease: LeaseRef, _ttlUs: number): Script<StepResult> {
    return { status: 'ok', msg: io.newMsg() };
  }

  *release(io: ClientIo, lease: LeaseRef, method: 'token-checked' | 'plain-del'): Script<StepResult> {
    this.handles.delete(lease.owner);
    const r = yield* io.request(this.node, { op: 'release', key: this.lockPath(lease.key), owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method },
    });
    return stepResult(r, 'not the owner');
  }

  // eslint-disable-next-line require-yield -- FlockStore and SemaphoreStore answer from the Key's own state
  *exists(io: ClientIo, lease: LeaseRef): Script<ExistsResult> {
    return { status: this.handles.has(lease.owner) ? 'yes' : 'no', msg: io.newMsg() };
  }

  /** A forked child's Key state is a copy: its release forgets its own handle, not its parent's. */
  fork(): LockDriver {
    return new LocalDriver(this.node, this.lockPath, this.library, this.onReconfigure, this.handles);
  }

  reconfigure(patch: Record<string, unknown>): void {
    const next = this.onReconfigure?.(patch);
    if (next !== undefined) this.lockPath = next;
  }
}
