import type { LockOp, LockReply } from '../../stores/protocol.js';

/** Who sends a request to a real node, as the trace names them. */
export interface NodeCall {
  readonly client: string;
  readonly msg: number;
}

/**
 * A change of the truth that a reply proves: the server granted, extended,
 * released, deleted or overwrote a lock. The runner records it as the store
 * node's event, just before the client's own event for the reply.
 */
export interface StoreFact {
  /** The store node it happened on, when not the node that answered (a Combined store's servers). */
  readonly node?: string;
  readonly kind: 'lock.granted' | 'lock.refreshed' | 'lock.released' | 'lock.expired' | 'lock.deleted' | 'lock.overwritten' | 'lock.queued' | 'lock.lost';
  readonly key: string;
  readonly owner: string;
  readonly fence?: number | undefined;
  readonly ttlUs?: number | undefined;
  readonly reason?: string | undefined;
  readonly data?: Record<string, number | string | boolean> | undefined;
}

export interface NodeAnswer {
  readonly reply: LockReply;
  readonly facts: readonly StoreFact[];
}

/** The connection was refused or is down: the request certainly did not take effect. */
export class RefusedError extends Error {
  constructor(
    readonly node: string,
    cause: string,
  ) {
    super(`${node}: ${cause}`);
    this.name = 'RefusedError';
  }
}

/**
 * A store node as a real server: it answers the same requests the
 * simulated node answers (the lock library's requests, `LockOp` and the
 * store's own extensions), by running real commands. One lives in each
 * client process, with that process's own connections.
 */
export interface RealNode {
  readonly name: string;
  /** Connects; fails within a few seconds naming the node and its address when it cannot. */
  open(): Promise<void>;
  handle(req: LockOp, call: NodeCall): Promise<NodeAnswer>;
  /** Closes every connection this node opened. */
  close(): Promise<void>;
}

export function answer(reply: LockReply, ...facts: StoreFact[]): NodeAnswer {
  return { reply, facts };
}

/** Microseconds to whole milliseconds, rounded up (a TTL is never shortened). */
export function usToMsCeil(us: number): number {
  return Math.ceil(us / 1000);
}

/** Runs `connect`, failing with a message that names the node and URL when it does not succeed within `timeoutMs`. */
export async function connectWithin(node: string, url: string, timeoutMs: number, connect: () => Promise<unknown>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`cannot reach ${node} at ${url} within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([connect(), deadline]);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(why.includes(url) ? why : `cannot reach ${node} at ${url}: ${why}`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
}
