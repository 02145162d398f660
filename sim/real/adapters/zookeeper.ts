import zookeeper from 'node-zookeeper-client';
import type { SessionOp } from '../../stores/session-driver.js';
import type { LockOp, LockReply } from '../../stores/protocol.js';
import { answer, connectWithin, RefusedError, type NodeAnswer, type NodeCall, type RealNode, type StoreFact } from './types.js';

const { CreateMode, Exception } = zookeeper;
type ZkClient = zookeeper.Client;
type Stat = zookeeper.Stat;

const EXPIRED = 'session expired';

/** A ZooKeeper failure's code, when it is one. */
function codeOf(err: unknown): number | undefined {
  return typeof (err as { getCode?: () => number })?.getCode === 'function' ? (err as { getCode(): number }).getCode() : undefined;
}

function zk<T>(f: (cb: (err: unknown, result: T) => void) => void): Promise<T> {
  return new Promise((resolve, reject) => f((err, result) => (err ? reject(err) : resolve(result))));
}

function zk2<T, U>(f: (cb: (err: unknown, a: T, b: U) => void) => void): Promise<[T, U]> {
  return new Promise((resolve, reject) => f((err, a, b) => (err ? reject(err) : resolve([a, b]))));
}

/** An 8-byte ZooKeeper number (zxid, session id) as a JavaScript number. */
export function zkNumber(b: Buffer): number {
  return Number(b.readBigInt64BE(0));
}

/**
 * Gives up a client that never got its session. close() only queues a
 * close-session request for a server that answers; one that accepted the
 * connection and says nothing (not ZooKeeper, or stopped) would keep the
 * socket open, and this process alive, for ever. Closing first, then
 * destroying the socket, ends the client for good: closed while closing, it
 * does not reconnect.
 */
function abandon(client: ZkClient): void {
  client.close();
  (client as unknown as { connectionManager?: { socket?: { destroy(): void } } }).connectionManager?.socket?.destroy();
}

/** A new session on the server at `connection` (zookeeper://HOST:PORT), with the given timeout (the server bounds it to 2..20 ticks). */
export function zkSession(connection: string, sessionTimeoutMs: number, withinMs = 4_000): Promise<ZkClient> {
  const client = zookeeper.createClient(connection.replace(/^zookeeper:\/\//, ''), { sessionTimeout: sessionTimeoutMs, spinDelay: 100, retries: 0 });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      abandon(client);
      reject(new Error(`no ZooKeeper session within ${withinMs} ms`));
    }, withinMs);
    client.once('connected', () => {
      clearTimeout(timer);
      resolve(client);
    });
    client.connect();
  });
}

/** The node a lock key is written at: the plain store's ephemeral node, or the recipe's parent of sequential children. */
export function znodeOf(key: string): string {
  return `/${key.replace(/\//g, '_')}`;
}

interface ZkSession {
  readonly client: ZkClient;
  expired: boolean;
  /** Lock nodes created on this session, by owner. */
  readonly nodes: Map<string, { key: string; path: string; held: boolean; fence: number | undefined }>;
}

/**
 * A ZooKeeper server (or ensemble) as a lock store. Each session the
 * simulated driver opens is a real ZooKeeper session of its own, with the
 * timeout it asks for; the real client library keeps it alive by itself, so
 * a paused process stops its heartbeats exactly as it would in production.
 * Plain: one EPHEMERAL node per key, as Symfony's ZookeeperStore. Recipe:
 * EPHEMERAL|SEQUENTIAL children, the lowest holds, each waiter watches its
 * predecessor, and the node's czxid is the fencing token.
 */
export class ZooKeeperNode implements RealNode {
  private readonly sessions = new Map<string, ZkSession>();

  constructor(
    readonly name: string,
    private readonly connection: string,
    private readonly recipe: boolean,
  ) {}

  async open(): Promise<void> {
    await connectWithin(this.name, this.connection, 5_000, async () => (await this.connect(4_000)).close());
  }

  /** A new session with the given timeout (the server bounds it to 2..20 ticks). */
  private connect(sessionTimeoutMs: number, withinMs = 4_000): Promise<ZkClient> {
    return zkSession(this.connection, sessionTimeoutMs, withinMs);
  }

  private async session(req: SessionOp): Promise<ZkSession | undefined> {
    const known = this.sessions.get(req.session);
    if (known !== undefined) return known;
    if (!req.fresh) return undefined;
    let client: ZkClient;
    try {
      client = await this.connect(Math.ceil(req.timeoutUs / 1000));
    } catch (err) {
      throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
    }
    const s: ZkSession = { client, expired: false, nodes: new Map() };
    client.on('expired', () => {
      s.expired = true;
    });
    this.sessions.set(req.session, s);
    return s;
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const op = req as unknown as SessionOp;
    if (op.op === 'exists') return this.exists(op);
    const s = await this.session(op);
    if (s === undefined || s.expired) return answer({ ok: false, error: EXPIRED });
    try {
      const a = await this.run(s, op, call);
      if (op.op === 'acquire' && !a.reply.ok && op.endIfDenied === true) await this.end(op.session, s);
      return a;
    } catch (err) {
      const code = codeOf(err);
      if (s.expired || code === Exception.SESSION_EXPIRED) {
        s.expired = true;
        return answer({ ok: false, error: EXPIRED });
      }
      if (code === Exception.CONNECTION_LOSS) throw new RefusedError(this.name, 'connection loss');
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async run(s: ZkSession, req: SessionOp, call: NodeCall): Promise<NodeAnswer> {
    const c = s.client;
    switch (req.op) {
      case 'ping':
        await zk2<Stat, unknown>((cb) => c.exists('/', cb as never));
        return answer({ ok: true });
      case 'close': {
        const facts = await this.end(req.session, s);
        return answer({ ok: true }, ...facts);
      }
      case 'acquire':
        return this.recipe ? this.acquireRecipe(s, req, call) : this.acquirePlain(s, req);
      case 'refresh': {
        const mine = s.nodes.get(req.owner);
        if (mine === undefined || !mine.held) return answer({ ok: false, holder: null });
        const stat = await zk2<Stat, unknown>((cb) => c.exists(mine.path, cb as never)).then(([st]) => st);
        if (stat === null || stat === undefined || zkNumber(stat.ephemeralOwner) !== zkNumber(c.getSessionId())) return answer({ ok: false, holder: null });
        return answer(mine.fence === undefined ? { ok: true } : { ok: true, fence: mine.fence });
      }
      case 'release': {
        const mine = s.nodes.get(req.owner);
        const facts: StoreFact[] = [];
        let reply: LockReply = { ok: false, holder: null };
        if (mine !== undefined) {
          const removed = await zk<void>((cb) => c.remove(mine.path, cb as never)).then(
            () => true,
            () => false,
          );
          s.nodes.delete(req.owner);
          if (removed && mine.held) {
            facts.push({ kind: 'lock.released', key: mine.key, owner: req.owner, fence: mine.fence, reason: 'released' });
            reply = { ok: true };
          }
        }
        if (req.end === true) facts.push(...(await this.end(req.session, s)));
        return answer(reply, ...facts);
      }
      case 'exists':
        return this.exists(req);
      case 'get':
      case 'set':
      case 'del':
        return answer({ ok: false, error: `no plain ${req.op} on this store` });
    }
  }

  /**
   * exists(): a read of the key's node, compared with our token, whoever's
   * session made it (the recipe: the lowest child). A read needs a
   * connection, not a session of ours: without a live one, a short-lived
   * session is opened for it and closed after, as the library reconnects.
   */
  private async exists(req: SessionOp & { op: 'exists' }): Promise<NodeAnswer> {
    const known = this.sessions.get(req.session);
    if ((known === undefined && !req.fresh) || known?.expired === true) return answer({ ok: false, error: EXPIRED });
    let client: ZkClient;
    try {
      client = known?.client ?? (await this.connect(Math.ceil(req.timeoutUs / 1000)));
    } catch (err) {
      throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
    }
    try {
      return answer({ ok: (await this.holderNow(client, req.key)) === req.owner });
    } catch (err) {
      const code = codeOf(err);
      if (code === Exception.SESSION_EXPIRED) return answer({ ok: false, error: EXPIRED });
      if (code === Exception.CONNECTION_LOSS) throw new RefusedError(this.name, 'connection loss');
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    } finally {
      if (known === undefined) client.close();
    }
  }

  /** The token in the node that holds `key` now (plain: the key's node; recipe: its lowest child), or null. */
  private async holderNow(c: ZkClient, key: string): Promise<string | null> {
    const path = znodeOf(key);
    const read = (p: string): Promise<string | null> =>
      zk2<Buffer, Stat>((cb) => c.getData(p, cb as never)).then(
        ([data]) => data?.toString() ?? null,
        (err: unknown) => {
          if (codeOf(err) === Exception.NO_NODE) return null;
          throw err;
        },
      );
    if (!this.recipe) return read(path);
    const children = await zk2<string[], unknown>((cb) => c.getChildren(path, cb as never)).then(
      ([list]) => list,
      (err: unknown) => {
        if (codeOf(err) === Exception.NO_NODE) return [] as string[];
        throw err;
      },
    );
    const head = children.sort()[0];
    return head === undefined ? null : read(`${path}/${head}`);
  }

  /** Symfony's ZookeeperStore: one ephemeral node named after the key, holding our token. */
  private async acquirePlain(s: ZkSession, req: SessionOp & { op: 'acquire' }): Promise<NodeAnswer> {
    const c = s.client;
    const path = znodeOf(req.key);
    const created = await zk<string>((cb) => c.create(path, Buffer.from(req.owner), CreateMode.EPHEMERAL, cb as never)).then(
      () => true,
      (err: unknown) => {
        if (codeOf(err) === Exception.NODE_EXISTS) return false;
        throw err;
      },
    );
    if (created) {
      s.nodes.set(req.owner, { key: req.key, path, held: true, fence: undefined });
      return answer({ ok: true }, { kind: 'lock.granted', key: req.key, owner: req.owner, data: { node: path, session: sessionHex(c) } });
    }
    const [data] = await zk2<Buffer, Stat>((cb) => c.getData(path, cb as never)).catch(() => [undefined, undefined] as const);
    const holder = data === undefined ? null : data.toString();
    // Symfony's save checks whether the node already holds our token: a repeated save succeeds.
    if (holder === req.owner) return answer({ ok: true });
    return answer({ ok: false, holder });
  }

  /** The lock recipe: a sequential ephemeral child; the lowest holds; the rest watch their predecessor. */
  private async acquireRecipe(s: ZkSession, req: SessionOp & { op: 'acquire' }, call: NodeCall): Promise<NodeAnswer> {
    const c = s.client;
    const parent = znodeOf(req.key);
    let mine = s.nodes.get(req.owner);
    const facts: StoreFact[] = [];
    if (mine === undefined) {
      await zk<string>((cb) => c.create(parent, CreateMode.PERSISTENT, cb as never)).catch((err: unknown) => {
        if (codeOf(err) !== Exception.NODE_EXISTS) throw err;
      });
      const path = await zk<string>((cb) => c.create(`${parent}/lock-`, Buffer.from(req.owner), CreateMode.EPHEMERAL_SEQUENTIAL, cb as never));
      const [stat] = await zk2<Stat, unknown>((cb) => c.exists(path, cb as never));
      mine = { key: req.key, path, held: false, fence: zkNumber(stat.czxid) };
      s.nodes.set(req.owner, mine);
    }
    const deadline = req.waitUs === undefined ? 0 : req.waitUs === null ? Infinity : Date.now() + req.waitUs / 1000;
    let queued = false;
    for (;;) {
      const [children] = await zk2<string[], unknown>((cb) => c.getChildren(parent, cb as never));
      const sorted = children.sort();
      const me = mine.path.slice(parent.length + 1);
      const at = sorted.indexOf(me);
      if (at === 0) {
        mine.held = true;
        facts.push({
          kind: 'lock.granted',
          key: req.key,
          owner: req.owner,
          fence: mine.fence,
          data: { node: mine.path, created: mine.fence ?? 0, session: sessionHex(c) },
        });
        return answer({ ok: true, fence: mine.fence }, ...facts);
      }
      const head = sorted[0];
      const [headData] =
        head === undefined ? [undefined] : await zk2<Buffer, Stat>((cb) => c.getData(`${parent}/${head}`, cb as never)).catch(() => [undefined]);
      const holder = headData === undefined ? null : headData.toString();
      if (Date.now() >= deadline) {
        await zk<void>((cb) => c.remove(mine!.path, cb as never)).catch(() => undefined);
        s.nodes.delete(req.owner);
        return answer({ ok: false, holder }, ...facts);
      }
      if (!queued) {
        queued = true;
        facts.push({
          kind: 'lock.queued',
          key: req.key,
          owner: req.owner,
          data: { position: at, holder: holder ?? '', created: mine.fence ?? 0, client: call.client },
        });
      }
      // Watch only the predecessor, and wait for it to go (or the wait to run out).
      const predecessor = `${parent}/${sorted[at - 1]}`;
      await new Promise<void>((resolve) => {
        const left = deadline === Infinity ? 2 ** 31 - 1 : Math.max(1, deadline - Date.now());
        const timer = setTimeout(resolve, Math.min(left, 2 ** 31 - 1));
        c.exists(
          predecessor,
          () => {
            clearTimeout(timer);
            resolve();
          },
          (err: unknown, stat: Stat | null) => {
            if (err || stat === null || stat === undefined) {
              clearTimeout(timer);
              resolve();
            }
          },
        );
      });
    }
  }

  /** Closes a session: its ephemeral nodes go with it. */
  private async end(id: string, s: ZkSession): Promise<StoreFact[]> {
    const facts: StoreFact[] = [];
    for (const [owner, n] of s.nodes) if (n.held) facts.push({ kind: 'lock.released', key: n.key, owner, fence: n.fence, reason: 'session closed' });
    s.nodes.clear();
    this.sessions.delete(id);
    s.client.close();
    return facts;
  }

  async close(): Promise<void> {
    for (const s of this.sessions.values()) s.client.close();
    this.sessions.clear();
  }
}

function sessionHex(c: ZkClient): string {
  return c.getSessionId().toString('hex');
}
