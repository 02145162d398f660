import { noop } from 'cockatiel';
import { CompareResult, CompareTarget, Etcd3, SortOrder, SortTarget, type ICompare, type IRequestOp, type Lease } from 'etcd3';
import type { SessionOp } from '../../stores/session-driver.js';
import type { LockOp } from '../../stores/protocol.js';
import { answer, connectWithin, RefusedError, type NodeAnswer, type NodeCall, type RealNode, type StoreFact } from './types.js';

const EXPIRED = 'lease expired';

/** An etcd client that fails fast: no retries, no circuit breaker (the lock library decides what to do). */
export function etcdClient(url: string): Etcd3 {
  return new Etcd3({ hosts: url, faultHandling: { host: () => noop, global: noop }, dialTimeout: 3_000 });
}

/** The end of the range of every key that starts with `prefix`: the prefix with its last byte one higher. */
function prefixEnd(prefix: string): Buffer {
  const end = Buffer.from(prefix);
  end[end.length - 1]! += 1;
  return end;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

function isLeaseGone(err: unknown): boolean {
  return (
    /lease not found|requested lease not found|revoked|lease.*expired/i.test(message(err)) ||
    (err as { constructor?: { name?: string } })?.constructor?.name === 'EtcdLeaseInvalidError'
  );
}

function isUnavailable(err: unknown): boolean {
  return /UNAVAILABLE|No connection established|ECONNREFUSED|connect|Deadline/i.test(message(err));
}

interface EtcdSession {
  readonly lease: Lease;
  readonly id: string;
  expired: boolean;
  /** Keys created under this lease, by owner. */
  readonly keys: Map<string, { key: string; path: string; created: number; held: boolean }>;
}

/**
 * etcd as a lock store, the way its concurrency package's mutex works: each
 * session the simulated driver opens is a real lease with its TTL (kept
 * alive by the driver's own keep-alive thread, so a paused process stops
 * them); the acquirer puts `key/<lease>` under the lease if it does not
 * exist; the key with the lowest create revision holds the lock, and that
 * revision is its fencing token; a waiter watches its predecessor.
 */
export class EtcdNode implements RealNode {
  readonly client: Etcd3;
  private readonly sessions = new Map<string, EtcdSession>();

  constructor(
    readonly name: string,
    private readonly url: string,
  ) {
    this.client = etcdClient(url);
  }

  async open(): Promise<void> {
    await connectWithin(this.name, this.url, 3_000, () => this.client.get('locklab-probe').string());
  }

  private async session(req: SessionOp): Promise<EtcdSession | undefined> {
    const known = this.sessions.get(req.session);
    if (known !== undefined) return known;
    if (!req.fresh) return undefined;
    // etcd counts lease TTLs in whole seconds.
    const lease = this.client.lease(Math.max(1, Math.ceil(req.timeoutUs / 1_000_000)), { autoKeepAlive: false });
    lease.on('lost', () => undefined);
    let id: string;
    try {
      id = await lease.grant();
    } catch (err) {
      throw new RefusedError(this.name, message(err));
    }
    const s: EtcdSession = { lease, id, expired: false, keys: new Map() };
    this.sessions.set(req.session, s);
    return s;
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const op = req as unknown as SessionOp;
    if (op.op === 'exists') return this.exists(op);
    // A session already open costs no await of its own: a lock cycle's every hop is a task.
    const s = this.sessions.get(op.session) ?? (await this.session(op));
    if (s === undefined || s.expired) return answer({ ok: false, error: EXPIRED });
    try {
      const a = await this.run(s, op, call);
      if (op.op === 'acquire' && !a.reply.ok && op.endIfDenied === true) await this.end(op.session, s);
      return a;
    } catch (err) {
      if (isLeaseGone(err)) {
        s.expired = true;
        return answer({ ok: false, error: EXPIRED });
      }
      if (isUnavailable(err)) throw new RefusedError(this.name, message(err));
      return answer({ ok: false, error: message(err) });
    }
  }

  /** The request's own method: a plain dispatch, so that a lock cycle's acquire and release pay no await of its own. */
  private run(s: EtcdSession, req: SessionOp, call: NodeCall): Promise<NodeAnswer> {
    switch (req.op) {
      case 'ping':
        return this.ping(s);
      case 'close':
        return this.end(req.session, s).then((facts) => answer({ ok: true }, ...facts));
      case 'acquire':
        return this.acquire(s, req, call);
      case 'refresh':
        return this.refresh(s, req);
      case 'release':
        return this.release(s, req);
      case 'exists':
        return this.exists(req);
      case 'get':
      case 'set':
      case 'del':
        return Promise.resolve(answer({ ok: false, error: `no plain ${req.op} on this store` }));
    }
  }

  /** A keep-alive of the session's lease; one the server has dropped answers TTL 0. */
  private async ping(s: EtcdSession): Promise<NodeAnswer> {
    const r = await s.lease.keepaliveOnce();
    if (Number(r.TTL) <= 0) {
      s.expired = true;
      return answer({ ok: false, error: EXPIRED });
    }
    return answer({ ok: true });
  }

  /** Whether our key is still there under our lease: the lock is still ours. */
  private async refresh(s: EtcdSession, req: SessionOp & { op: 'refresh' }): Promise<NodeAnswer> {
    const mine = s.keys.get(req.owner);
    if (mine === undefined || !mine.held) return answer({ ok: false, holder: null });
    const kv = (await this.client.get(mine.path).exec()).kvs[0];
    if (kv === undefined || kv.lease !== s.id) return answer({ ok: false, holder: null });
    return answer({ ok: true, fence: mine.created });
  }

  /** Deletes our key; a lock we held is released, and the session ends too when the release says so. */
  private async release(s: EtcdSession, req: SessionOp & { op: 'release' }): Promise<NodeAnswer> {
    const mine = s.keys.get(req.owner);
    const facts: StoreFact[] = [];
    let ok = false;
    if (mine !== undefined) {
      const r = await this.client.kv.deleteRange({ key: Buffer.from(mine.path) });
      s.keys.delete(req.owner);
      ok = Number(r.deleted) > 0 && mine.held;
      if (ok) facts.push({ kind: 'lock.released', key: mine.key, owner: req.owner, fence: mine.created, reason: 'released' });
    }
    if (req.end === true) facts.push(...(await this.end(req.session, s)));
    return answer(ok ? { ok: true } : { ok: false, holder: null }, ...facts);
  }

  /**
   * exists(): a range read of the lock's prefix, compared with our token: the
   * key with the lowest create revision is the holder. A read needs no lease
   * of ours, only a session the server has not dropped when we name one.
   */
  private async exists(req: SessionOp & { op: 'exists' }): Promise<NodeAnswer> {
    const known = this.sessions.get(req.session);
    if ((known === undefined && !req.fresh) || known?.expired === true) return answer({ ok: false, error: EXPIRED });
    try {
      const head = (await this.client.getAll().prefix(`${req.key}/`).sort('Create', 'Ascend').limit(1).exec()).kvs[0];
      return answer({ ok: head !== undefined && head.value.toString() === req.owner });
    } catch (err) {
      if (isUnavailable(err)) throw new RefusedError(this.name, message(err));
      return answer({ ok: false, error: message(err) });
    }
  }

  /**
   * Creates our key under the lease if it is not there yet, and answers its
   * create revision (the fencing token) with the key that holds the lock
   * now, the prefix's lowest create revision. When nobody has a key under
   * the prefix, which is the usual case, one small transaction does it: a
   * put under a compare that the range is empty. Ours is then the only key,
   * so it holds the lock, and nothing needs reading back. Only when that
   * compare fails does a second transaction create our key if need be (a
   * write transaction's revision is then its create revision) or read it
   * back, and read the prefix's first key. Sending both in one nested
   * transaction every time cost the usual case about a tenth of its
   * throughput (the bench's etcd line).
   */
  private async createKey(
    s: EtcdSession,
    prefix: string,
    path: string,
    owner: string,
  ): Promise<{ created: number; head: { path: string; owner: string } | undefined }> {
    const key = Buffer.from(path);
    const ownKeyIsNew: ICompare = { key, target: CompareTarget.Create, result: CompareResult.Equal, create_revision: 0 };
    const put: IRequestOp = { request_put: { key, value: Buffer.from(owner), lease: s.id } };
    const readHead: IRequestOp = {
      request_range: { key: Buffer.from(prefix), range_end: prefixEnd(prefix), sort_target: SortTarget.Create, sort_order: SortOrder.Ascend, limit: 1 },
    };
    const free = await this.client.kv.txn({
      // Every key of the range has create revision 0: the range is empty.
      compare: [{ ...ownKeyIsNew, key: Buffer.from(prefix), range_end: prefixEnd(prefix) }],
      success: [put],
    });
    if (free.succeeded) return { created: Number(free.header.revision), head: { path, owner } };
    const t = await this.client.kv.txn({ compare: [ownKeyIsNew], success: [put, readHead], failure: [{ request_range: { key } }, readHead] });
    const first = t.responses[1]?.response_range.kvs[0];
    const head = first === undefined ? undefined : { path: first.key.toString(), owner: first.value.toString() };
    // A transaction is one revision: a key it put was created at the header's.
    if (t.succeeded) return { created: Number(t.header.revision), head };
    const own = t.responses[0]?.response_range.kvs[0];
    if (own === undefined || own.lease !== s.id) throw new Error(`lease ${s.id} could not create ${path}`);
    return { created: Number(own.create_revision), head };
  }

  private async acquire(s: EtcdSession, req: SessionOp & { op: 'acquire' }, call: NodeCall): Promise<NodeAnswer> {
    const prefix = `${req.key}/`;
    let mine = s.keys.get(req.owner);
    const facts: StoreFact[] = [];
    if (mine === undefined) {
      const path = `${prefix}${BigInt(s.id).toString(16)}`;
      const { created, head } = await this.createKey(s, prefix, path, req.owner);
      mine = { key: req.key, path, created, held: false };
      s.keys.set(req.owner, mine);
      if (head?.path === path) {
        mine.held = true;
        facts.push({ kind: 'lock.granted', key: req.key, owner: req.owner, fence: mine.created, data: { key: path, created: mine.created, lease: s.id } });
        return answer({ ok: true, fence: mine.created }, ...facts);
      }
      // Someone else holds it and we do not wait: give our place up, as the loop below would.
      if (req.waitUs === undefined && head !== undefined) {
        await this.client.delete().key(path).exec();
        s.keys.delete(req.owner);
        return answer({ ok: false, holder: head.owner }, ...facts);
      }
    }
    const deadline = req.waitUs === undefined ? 0 : req.waitUs === null ? Infinity : Date.now() + req.waitUs / 1000;
    let queued = false;
    for (;;) {
      const all = (await this.client.getAll().prefix(prefix).sort('Create', 'Ascend').exec()).kvs;
      const at = all.findIndex((kv) => kv.key.toString() === mine!.path);
      if (at === -1) {
        s.keys.delete(req.owner);
        return answer({ ok: false, error: EXPIRED }, ...facts);
      }
      if (at === 0) {
        mine.held = true;
        facts.push({ kind: 'lock.granted', key: req.key, owner: req.owner, fence: mine.created, data: { key: mine.path, created: mine.created, lease: s.id } });
        return answer({ ok: true, fence: mine.created }, ...facts);
      }
      const holder = all[0]!.value.toString();
      if (Date.now() >= deadline) {
        await this.client.delete().key(mine.path).exec();
        s.keys.delete(req.owner);
        return answer({ ok: false, holder }, ...facts);
      }
      if (!queued) {
        queued = true;
        facts.push({ kind: 'lock.queued', key: req.key, owner: req.owner, data: { position: at, holder, created: mine.created, client: call.client } });
      }
      await this.waitForDelete(all[at - 1]!.key.toString(), deadline);
    }
  }

  /** Waits until `key` is deleted, or the deadline passes. */
  private async waitForDelete(key: string, deadline: number): Promise<void> {
    const watcher = await this.client.watch().key(key).create();
    try {
      const gone = new Promise<void>((resolve) => watcher.on('delete', () => resolve()));
      // It may have gone before the watch began.
      if ((await this.client.get(key).exec()).kvs.length === 0) return;
      const left = deadline === Infinity ? 2 ** 31 - 1 : Math.max(1, deadline - Date.now());
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([gone, new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.min(left, 2 ** 31 - 1))))]);
      clearTimeout(timer);
    } finally {
      await watcher.cancel().catch(() => undefined);
    }
  }

  /** Ends a session: revoking the lease deletes every key bound to it. */
  private async end(id: string, s: EtcdSession): Promise<StoreFact[]> {
    const facts: StoreFact[] = [];
    for (const [owner, k] of s.keys) if (k.held) facts.push({ kind: 'lock.released', key: k.key, owner, fence: k.created, reason: 'lease revoked' });
    s.keys.clear();
    this.sessions.delete(id);
    await s.lease.revoke().catch(() => undefined);
    return facts;
  }

  async close(): Promise<void> {
    for (const [id, s] of [...this.sessions]) await this.end(id, s);
    this.client.close();
  }
}
