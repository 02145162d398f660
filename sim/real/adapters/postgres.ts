import pg from 'pg';
import { crc32 } from '../../stores/postgres.js';
import { CONNECTION_LOST } from '../../stores/postgres-driver.js';
import type { LockOp } from '../../stores/protocol.js';
import { answer, connectWithin, RefusedError, type NodeAnswer, type NodeCall, type RealNode } from './types.js';

/** What the simulated advisory-lock driver adds to each request: which connection it goes over. */
interface PgFields {
  readonly conn: string;
  readonly fresh: boolean;
}

/**
 * The statements of every acquire and release, prepared once per connection
 * (named, so the server parses and plans each once, not on every request).
 */
const STATEMENTS = {
  pg_try_advisory_lock: 'SELECT pg_try_advisory_lock($1) AS got',
  pg_try_advisory_lock_shared: 'SELECT pg_try_advisory_lock_shared($1) AS got',
  pg_advisory_unlock: 'SELECT pg_advisory_unlock($1) AS ok',
  pg_advisory_unlock_shared: 'SELECT pg_advisory_unlock_shared($1) AS ok',
} as const;

/** Each statement's name on the connection, made once. */
const NAMES = Object.fromEntries(Object.keys(STATEMENTS).map((fn) => [fn, `locklab-${fn}`])) as Record<keyof typeof STATEMENTS, string>;

/** Runs one of the lock's prepared statements for lock `id`: its one boolean answer. */
function call(c: pg.Client, fn: keyof typeof STATEMENTS, id: number): Promise<boolean> {
  return c.query<[boolean]>({ name: NAMES[fn], text: STATEMENTS[fn], values: [id], rowMode: 'array' }).then((r) => r.rows[0]?.[0] === true);
}

/** PostgreSQL's SQLSTATE for a statement cancelled by lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** A pg connection that fails fast; `application` names it in pg_stat_activity, so the harness can find its backend. */
export async function pgConnect(url: string, application: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url, application_name: application, connectionTimeoutMillis: 3_000 });
  // A backend terminated while idle surfaces here; the next query then fails and says so.
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Whether a pg failure means the connection is gone (terminated backend, server down, socket closed). */
export function isLostConnection(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return (
    e.code === '57P01' ||
    e.code === '57P02' ||
    e.code === '57P03' ||
    e.code === 'ECONNRESET' ||
    e.code === 'ECONNREFUSED' ||
    e.code === 'EPIPE' ||
    /terminat|Connection terminated|not queryable|has been closed|ECONNREFUSED|ECONNRESET/i.test(e.message ?? '')
  );
}

/**
 * PostgreSQL advisory locks as Symfony's PostgreSqlStore takes them: the
 * key's crc32 as the lock id, pg_try_advisory_lock to try,
 * pg_advisory_lock under a lock_timeout to wait, pg_locks to check,
 * pg_advisory_unlock to release. Each simulated connection id gets a real
 * connection of its own, so a terminated backend is a real lost session.
 */
export class PostgresAdvisoryNode implements RealNode {
  private readonly connections = new Map<string, pg.Client>();
  /** Connections the server dropped: a query on them fails as on a dead PDO handle. */
  private readonly dead = new Set<string>();
  /**
   * Which owners took which lock id on each connection: pg_locks knows the
   * backend, not the Key, so exists() checks both, as the store's own record
   * of its keys does in Symfony.
   */
  private readonly owners = new Map<string, Map<number, Set<string>>>();

  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly application: string,
  ) {}

  async open(): Promise<void> {
    await connectWithin(this.name, this.url, 3_000, async () => (await pgConnect(this.url, `${this.application}-probe`)).end());
  }

  private async connect(f: PgFields): Promise<pg.Client | undefined> {
    if (!f.fresh || this.dead.has(f.conn)) return undefined;
    let c: pg.Client;
    try {
      c = await pgConnect(this.url, this.application);
    } catch (err) {
      throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
    }
    this.connections.set(f.conn, c);
    return c;
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const f = req as LockOp & PgFields;
    // A known connection is taken without a wait: the common case, every request after a session's first.
    const c = this.connections.get(f.conn) ?? (await this.connect(f));
    if (c === undefined) return answer({ ok: false, error: CONNECTION_LOST });
    // The request's promise itself, with its failures mapped: no await of its own in every lock cycle.
    return this.run(c, f.conn, req, call).catch((err: unknown) => {
      if (isLostConnection(err)) {
        this.connections.delete(f.conn);
        this.owners.delete(f.conn);
        this.dead.add(f.conn);
        c.end().catch(() => undefined);
        return answer({ ok: false, error: CONNECTION_LOST });
      }
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    });
  }

  private ownersOf(conn: string, id: number): Set<string> {
    let byId = this.owners.get(conn);
    if (byId === undefined) this.owners.set(conn, (byId = new Map()));
    let set = byId.get(id);
    if (set === undefined) byId.set(id, (set = new Set()));
    return set;
  }

  /** Whether this connection's backend holds advisory lock `id` now, per pg_locks. */
  private async backendHolds(c: pg.Client, id: number): Promise<boolean> {
    const rows = await c.query(
      "SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = 0 AND objid = $1 AND objsubid = 1 AND pid = pg_backend_pid() AND granted",
      [id],
    );
    return rows.rowCount !== null && rows.rowCount > 0;
  }

  private async run(c: pg.Client, conn: string, req: LockOp, _call: NodeCall): Promise<NodeAnswer> {
    const id = crc32(req.key);
    switch (req.op) {
      case 'acquire': {
        const shared = req.shared === true;
        let got: boolean;
        if (req.waitUs === undefined) {
          got = await call(c, shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock', id);
        } else {
          const fn = shared ? 'pg_advisory_lock_shared' : 'pg_advisory_lock';
          // lock_timeout 0 waits for ever, as pg_advisory_lock does.
          const timeoutMs = req.waitUs === null ? 0 : Math.max(1, Math.ceil(req.waitUs / 1000));
          await c.query(`SET lock_timeout = ${timeoutMs}`);
          got = await c.query(`SELECT ${fn}($1)`, [id]).then(
            () => true,
            (err: { code?: string }) => {
              if (err.code === LOCK_NOT_AVAILABLE) return false;
              throw err;
            },
          );
        }
        if (!got) return answer({ ok: false, holder: null });
        this.ownersOf(conn, id).add(req.owner);
        const data = { lockId: id, command: req.waitUs === undefined ? 'pg_try_advisory_lock' : 'pg_advisory_lock', ...(shared ? { shared: true } : {}) };
        return answer({ ok: true }, { kind: 'lock.granted', key: req.key, owner: req.owner, data });
      }
      case 'refresh':
        return answer((await this.backendHolds(c, id)) ? { ok: true } : { ok: false, holder: null });
      case 'exists':
        return answer({ ok: this.ownersOf(conn, id).has(req.owner) && (await this.backendHolds(c, id)) });
      case 'release': {
        // Exclusive first (the common case, one round trip); a shared lock answers false there, then true here.
        const ok = (await call(c, 'pg_advisory_unlock', id)) || (await call(c, 'pg_advisory_unlock_shared', id));
        if (!ok) return answer({ ok: false, holder: null });
        this.ownersOf(conn, id).delete(req.owner);
        return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' });
      }
      case 'get':
      case 'set':
      case 'del':
        return answer({ ok: false, error: `advisory locks have no ${req.op}` });
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.connections.values()].map((c) => c.end().catch(() => undefined)));
    this.connections.clear();
  }
}
