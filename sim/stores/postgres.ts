import { utf8ToBytes } from '@noble/hashes/utils.js';
import type { Scenario, StoreSpecBase } from '../scenario/types.js';
import { machineRef } from './checks.js';
import { deployedNodeFor, deployNodes, nodeSpec } from './deploy.js';
import { CONNECTION_LOST, PostgresDriver, type PgOp } from './postgres-driver.js';
import type { Timer } from '../kernel/kernel.js';
import { DEFER, type Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';

import type { Process, World } from '../world/world.js';
import type { Capabilities, LockOp, LockReply, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';
import { storeSchema } from './schema-of.js';

export interface PostgresSpec extends StoreSpecBase {
  kind: 'postgres';
  name: string;
  machine: string;
}

export const POSTGRES_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: true,
  expiring: false,
  sharing: true,
  blockingShared: 'interface',
  fencingToken: null,
  losesLockWhen: [
    'the TCP connection drops (the server releases the lock; the client is not told until it next talks to the server)',
    'server restart (same: released silently)',
    'the client process exits (its connection closes)',
  ],
};

/** The reply a request on a dead connection gets: the socket is gone, the session with it. */

const CRC32_TABLE: readonly number[] = (() => {
  const table: number[] = [];
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table.push(c >>> 0);
  }
  return table;
})();

/**
 * CRC-32 (IEEE 802.3, as PHP's crc32()) of a string's UTF-8 bytes, unsigned.
 * Symfony's PostgreSqlStore turns a lock name into the integer
 * pg_advisory_lock needs with it, which is why two names can share a lock.
 */
export function crc32(text: string): number {
  let c = 0xffffffff;
  // A name in ASCII is its own UTF-8: read it as it is, without encoding it first (every request hashes its key).
  let ascii = true;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0x80) {
      ascii = false;
      break;
    }
    c = CRC32_TABLE[(c ^ code) & 0xff]! ^ (c >>> 8);
  }
  if (!ascii) {
    c = 0xffffffff;
    for (const b of utf8ToBytes(text)) c = CRC32_TABLE[(c ^ b) & 0xff]! ^ (c >>> 8);
  }
  return (c ^ 0xffffffff) >>> 0;
}

interface Session {
  readonly conn: string;
  readonly client: string;
  /** Lock ids held by this backend, in the order taken. */
  readonly held: Holder[];
  /** The request this backend is blocked in, if any. */
  waiting: Waiter | undefined;
}

interface Holder {
  readonly lockId: number;
  /** The name the client asked for; another name with the same crc32 is the same lock. */
  readonly key: string;
  readonly owner: string;
  /** A holder may change modes (promote, demote) within its session. */
  shared: boolean;
  readonly session: Session;
}

interface Waiter {
  readonly lockId: number;
  readonly key: string;
  readonly owner: string;
  readonly shared: boolean;
  readonly session: Session;
  readonly caller: Caller;
  timer: Timer | undefined;
}

interface AdvisoryLock {
  readonly holders: Holder[];
  /** Blocked pg_advisory_lock calls, granted first come first served. */
  readonly queue: Waiter[];
}

/**
 * One PostgreSQL server's advisory locks, as the PostgreSQL docs and
 * Symfony's PostgreSqlStore describe them: a lock belongs to the session
 * (the connection) that took it and lasts until it is unlocked or the
 * session ends; nothing expires. pg_advisory_lock blocks in the server, and
 * waiters are granted in arrival order (a shared request queues behind a
 * waiting exclusive one, as the lock manager's wait mask makes it);
 * pg_try_advisory_lock does not wait. A dropped connection, a restart or the
 * client's exit ends the session, and the server lets its locks go without
 * any word to the client, which learns of it only when its next query on
 * that connection fails.
 */
export class PostgresNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  private readonly sessions = new Map<string, Session>();
  private readonly locks = new Map<number, AdvisoryLock>();
  private up = true;

  constructor(
    private readonly world: World,
    spec: PostgresSpec,
  ) {
    this.name = spec.name;
    this.machine = world.machine(spec.machine);
    world.onProcessExit((p: Process) => this.processExited(p.name));
  }

  isUp(): boolean {
    return this.up;
  }

  handle(request: LockOp, caller: Caller): LockReply | typeof DEFER {
    const req = request as PgOp;
    let session = this.sessions.get(req.conn);
    if (session === undefined) {
      // A query on a connection the server no longer has: the client's socket is dead.
      if (!req.fresh) return { ok: false, error: CONNECTION_LOST };
      session = { conn: req.conn, client: caller.process, held: [], waiting: undefined };
      this.sessions.set(req.conn, session);
    }
    const lockId = crc32(req.key);
    switch (req.op) {
      case 'acquire':
        return this.acquire(session, lockId, req, caller);
      case 'refresh': {
        // Advisory locks never expire: Symfony's putOffExpiration only checks pg_locks for this backend.
        const mine = this.locks.get(lockId)?.holders.find((h) => h.session === session);
        return mine === undefined ? { ok: false, holder: this.holderOf(lockId) } : { ok: true };
      }
      case 'exists': {
        // pg_locks for this backend, then the store's own record of which Key took it.
        const mine = this.locks.get(lockId)?.holders.find((h) => h.session === session);
        return { ok: mine !== undefined && mine.owner === req.owner };
      }
      case 'release': {
        const lock = this.locks.get(lockId);
        const mine = lock?.holders.find((h) => h.session === session && h.owner === req.owner);
        // pg_advisory_unlock answers false (with a warning) for a lock this session does not hold.
        if (lock === undefined || mine === undefined) return { ok: false, holder: this.holderOf(lockId) };
        this.drop(mine, 'lock.released', 'released', caller.msg);
        this.grantWaiters(lockId);
        return { ok: true };
      }
      case 'get':
      case 'set':
      case 'del':
        // The store kind says plainGetSet: false, so the scenario check never lets a client send these.
        return { ok: false, error: `advisory locks have no ${req.op}` };
    }
  }

  private acquire(session: Session, lockId: number, req: PgOp & { op: 'acquire' }, caller: Caller): LockReply | typeof DEFER {
    const shared = req.shared === true;
    const lock = this.lockFor(lockId);
    // Advisory locks are re-entrant within a session; a retry of the same request must not lock its owner out.
    const mine = lock.holders.find((h) => h.session === session);
    if (mine !== undefined) {
      if (mine.shared === shared) return { ok: true };
      // Promotion (shared to exclusive) needs no other session to hold it; demotion always works. Symfony then drops the old mode.
      if (!shared && lock.holders.some((h) => h !== mine)) return { ok: false, holder: lock.holders.find((h) => h !== mine)!.owner };
      mine.shared = shared;
      this.grantWaiters(lockId);
      return { ok: true };
    }
    if (this.compatible(lock, shared) && lock.queue.length === 0) {
      this.grant({ lockId, key: req.key, owner: req.owner, shared, session }, caller.msg);
      return { ok: true };
    }
    if (req.waitUs === undefined) return { ok: false, holder: this.holderOf(lockId) };
    const waiter: Waiter = { lockId, key: req.key, owner: req.owner, shared, session, caller, timer: undefined };
    if (req.waitUs !== null) {
      // lock_timeout: the statement is cancelled and the client hears it did not get the lock.
      waiter.timer = this.world.kernel.after(this.machine.clock.trueDuration(req.waitUs), () => {
        this.unqueue(waiter);
        waiter.caller.respond({ ok: false, holder: this.holderOf(lockId) });
      });
    }
    session.waiting = waiter;
    lock.queue.push(waiter);
    const data = { position: lock.queue.length, waitUs: req.waitUs ?? -1, holder: this.holderOf(lockId) ?? '', lockId };
    this.world.record('lock.queued', this.name, this.machine, { key: req.key, owner: req.owner, peer: caller.process, msg: caller.msg, data });
    return DEFER;
  }

  /** Ends every session of `client`, as if its TCP connection had dropped. Returns how many held locks went. */
  connectionLost(client: string, reason: string): number {
    let lost = 0;
    for (const session of [...this.sessions.values()]) {
      if (session.client !== client) continue;
      lost += this.endSession(session, reason);
    }
    return lost;
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    // Every backend dies with the postmaster; advisory locks live only in shared memory.
    let lost = 0;
    for (const session of this.sessions.values()) lost += session.held.length;
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'none', keysLost: lost } });
    for (const session of [...this.sessions.values()]) this.endSession(session, 'restart');
    this.world.kernel.after(downUs, () => {
      this.up = true;
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: 0 } });
    });
  }

  private processExited(client: string): void {
    // The dying process's kernel closes its socket; the backend ends and its locks go.
    this.connectionLost(client, 'process exit');
  }

  private endSession(session: Session, reason: string): number {
    this.sessions.delete(session.conn);
    const data = { what: 'connection', conn: session.conn, locks: session.held.length };
    this.world.record('session.ended', this.name, this.machine, { peer: session.client, reason, data });
    const waiter = session.waiting;
    if (waiter !== undefined) {
      this.unqueue(waiter);
      waiter.caller.respond({ ok: false, error: CONNECTION_LOST });
    }
    const held = [...session.held];
    for (const h of held) this.drop(h, 'lock.lost', reason, undefined);
    for (const h of held) this.grantWaiters(h.lockId);
    return held.length;
  }

  private lockFor(lockId: number): AdvisoryLock {
    let lock = this.locks.get(lockId);
    if (lock === undefined) {
      lock = { holders: [], queue: [] };
      this.locks.set(lockId, lock);
    }
    return lock;
  }

  private compatible(lock: AdvisoryLock, shared: boolean): boolean {
    return lock.holders.length === 0 || (shared && lock.holders.every((h) => h.shared));
  }

  private holderOf(lockId: number): string | null {
    return this.locks.get(lockId)?.holders[0]?.owner ?? null;
  }

  private grant(h: Holder, msg: number): void {
    this.lockFor(h.lockId).holders.push(h);
    h.session.held.push(h);
    const data: Record<string, number | boolean | string> = { lockId: h.lockId, conn: h.session.conn };
    if (h.shared) data.shared = true;
    this.world.record('lock.granted', this.name, this.machine, { key: h.key, owner: h.owner, peer: h.session.client, msg, data });
  }

  private drop(h: Holder, kind: string, reason: string, msg: number | undefined): void {
    const lock = this.locks.get(h.lockId)!;
    lock.holders.splice(lock.holders.indexOf(h), 1);
    h.session.held.splice(h.session.held.indexOf(h), 1);
    this.world.record(kind, this.name, this.machine, { key: h.key, owner: h.owner, peer: h.session.client, msg, reason, data: { lockId: h.lockId } });
    if (lock.holders.length === 0 && lock.queue.length === 0) this.locks.delete(h.lockId);
  }

  private unqueue(w: Waiter): void {
    this.world.kernel.cancel(w.timer);
    w.session.waiting = undefined;
    const lock = this.locks.get(w.lockId);
    if (lock === undefined) return;
    const i = lock.queue.indexOf(w);
    if (i !== -1) lock.queue.splice(i, 1);
    if (lock.holders.length === 0 && lock.queue.length === 0) this.locks.delete(w.lockId);
    else this.grantWaiters(w.lockId);
  }

  /** Grants waiters from the head of the queue for as long as they are compatible with the holders. */
  private grantWaiters(lockId: number): void {
    const lock = this.locks.get(lockId);
    // A server going down grants nothing: its waiters' backends die with it.
    if (lock === undefined || !this.up) return;
    for (let w = lock.queue[0]; w !== undefined && this.compatible(lock, w.shared); w = lock.queue[0]) {
      lock.queue.shift();
      this.world.kernel.cancel(w.timer);
      w.session.waiting = undefined;
      this.grant({ lockId, key: w.key, owner: w.owner, shared: w.shared, session: w.session }, w.caller.msg);
      w.caller.respond({ ok: true });
    }
  }
}

/** The PostgreSQL store kind: advisory locks on one server, Symfony's PostgreSqlStore protocol. */
export const POSTGRES: StoreKind = {
  kind: 'postgres',
  title: 'PostgreSQL advisory locks (session-bound; names hashed with crc32, so two names can collide)',
  capabilities: POSTGRES_CAPABILITIES,
  hazardScenario: 'postgres-connection-loss',
  faults: ['store-restart', 'connection-loss', 'deploy'],
  deployable: ['machine'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'postgres',
    description:
      'A PostgreSQL server used through advisory locks (pg_advisory_lock, pg_try_advisory_lock, their _shared forms): held by the connection that took them until unlocked or the connection ends; no expiry, no fencing token.',
    name: { default: 'postgres', description: "The server's name in the trace and in faults." },
    machine: { description: 'The machine the server runs on.' },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): PostgresSpec {
    const spec: PostgresSpec = { kind: 'postgres', name: (input.name as string | undefined) ?? 'postgres', machine: input.machine as string };
    machineRef(check, spec.machine, 'machine');
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) => deployNodes(spec, scenario).map((n) => n.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const nodes = deployNodes(spec, scenario).map((n) => new PostgresNode(world, nodeSpec(spec as PostgresSpec, n)));
    return {
      nodes: new Map(nodes.map((n) => [n.name, n])),
      fault(f) {
        if (f.kind === 'connection-loss') for (const node of nodes) node.connectionLost(f.target, CONNECTION_LOST);
      },
    };
  },
  driver(spec: StoreSpecBase) {
    return new PostgresDriver({ name: spec.name }, deployedNodeFor(spec));
  },
};
