import type pg from 'pg';
import type { LockOp } from '../../stores/protocol.js';
import { isLostConnection, pgConnect } from './postgres.js';
import { answer, connectWithin, RefusedError, type NodeAnswer, type NodeCall, type RealNode } from './types.js';

/** Symfony PdoStore's table, as its createTable() makes it on PostgreSQL. */
export const LOCK_TABLE_DDL =
  'CREATE TABLE IF NOT EXISTS lock_keys (key_id VARCHAR(64) NOT NULL PRIMARY KEY, key_token VARCHAR(64) NOT NULL, key_expiration INTEGER NOT NULL)';

/**
 * What PostgreSQL tells the losers of a race between CREATE TABLE IF NOT
 * EXISTS statements, each time the table another made: a duplicate key in
 * its catalog of types (23505), the relation exists (42P07), or its row
 * type exists (42710).
 */
const TABLE_MADE_BY_ANOTHER: ReadonlySet<string> = new Set(['23505', '42P07', '42710']);

/** The database behind the table, as the scenario's `store.database` names it: it decides how "now" becomes whole seconds. */
export type TableDatabase = 'mysql' | 'postgresql' | 'sqlite';

/**
 * "Now" on the server's clock in whole seconds, as PdoStore reads it from
 * each database, in PostgreSQL's SQL: on pgsql the cast rounds to the
 * nearest second; MySQL's UNIX_TIMESTAMP() and SQLite's strftime('%s')
 * truncate, which FLOOR plays on the same server.
 */
export function serverNowSql(database: TableDatabase): string {
  return database === 'postgresql' ? 'CAST(EXTRACT(epoch FROM NOW()) AS INT)' : 'CAST(FLOOR(EXTRACT(epoch FROM NOW())) AS INT)';
}

/**
 * A lock table on a real PostgreSQL, with Symfony PdoStore's statements:
 * INSERT to acquire; on a duplicate key, UPDATE ... WHERE the token is ours
 * or the row has expired (a takeover); DELETE ... WHERE the token is ours.
 * "Now" is the server's clock (PdoStore), read as the scenario's database
 * reads it, or the client's reading carried by the request (a hand-written
 * table): the request's `clientNowUs`.
 */
export class SqlTableNode implements RealNode {
  private client: pg.Client | undefined;

  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly application: string,
    private readonly database: TableDatabase = 'postgresql',
  ) {}

  async open(): Promise<void> {
    await connectWithin(this.name, this.url, 3_000, async () => {
      const c = await this.connection();
      // Clients connect at once: two CREATE TABLE IF NOT EXISTS can race in PostgreSQL's catalog, and the loser is told the table is there.
      await c.query(LOCK_TABLE_DDL).catch((err: { code?: string }) => {
        if (!TABLE_MADE_BY_ANOTHER.has(err.code ?? '')) throw err;
      });
    });
  }

  private async connection(): Promise<pg.Client> {
    if (this.client !== undefined) return this.client;
    try {
      this.client = await pgConnect(this.url, this.application);
    } catch (err) {
      throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
    }
    return this.client;
  }

  async handle(req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const c = await this.connection();
    try {
      return await this.run(c, req, call);
    } catch (err) {
      if (isLostConnection(err)) {
        // The next statement connects again, as PDO does when asked anew.
        this.client = undefined;
        c.end().catch(() => undefined);
        throw new RefusedError(this.name, err instanceof Error ? err.message : String(err));
      }
      return answer({ ok: false, error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async run(c: pg.Client, req: LockOp, call: NodeCall): Promise<NodeAnswer> {
    const clientNowUs = (req as LockOp & { clientNowUs?: number }).clientNowUs;
    // With a client clock the statement carries the client's reading, in whole seconds, as a literal.
    const now = clientNowUs === undefined ? serverNowSql(this.database) : `${Math.floor(clientNowUs / 1_000_000)}`;
    const by = clientNowUs === undefined ? 'the server clock' : `${call.client}'s clock`;
    switch (req.op) {
      case 'acquire':
      case 'refresh': {
        const ttlS = Math.max(1, Math.ceil(req.ttlUs / 1_000_000));
        if (req.op === 'acquire') {
          const inserted = await c
            .query(`INSERT INTO lock_keys (key_id, key_token, key_expiration) VALUES ($1, $2, ${now} + $3)`, [req.key, req.owner, ttlS])
            .then(
              () => true,
              (err: { code?: string }) => {
                if (err.code === '23505') return false;
                throw err;
              },
            );
          if (inserted)
            return answer(
              { ok: true },
              {
                kind: 'lock.granted',
                key: req.key,
                owner: req.owner,
                ttlUs: req.ttlUs,
                data: { command: 'INSERT', clock: clientNowUs === undefined ? 'server' : 'client' },
              },
            );
        }
        // putOffExpiration: ours, or expired by "now" (a takeover); the previous token is read in the same statement.
        const r = await c.query<{ previous: string; expired_at: number; now_s: number }>(
          `UPDATE lock_keys AS l SET key_token = $2, key_expiration = ${now} + $3
             FROM (SELECT key_token AS previous, key_expiration AS expired_at FROM lock_keys WHERE key_id = $1 FOR UPDATE) AS p
            WHERE l.key_id = $1 AND (l.key_token = $2 OR l.key_expiration <= ${now})
           RETURNING p.previous, p.expired_at, ${now} AS now_s`,
          [req.key, req.owner, ttlS],
        );
        const row = r.rows[0];
        if (row === undefined) {
          const holder = await c.query<{ key_token: string }>('SELECT key_token FROM lock_keys WHERE key_id = $1', [req.key]);
          return answer({ ok: false, holder: holder.rows[0]?.key_token ?? null });
        }
        if (row.previous === req.owner) {
          return answer({ ok: true }, { kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs, data: { command: 'UPDATE' } });
        }
        return answer(
          { ok: true },
          {
            kind: 'lock.expired',
            key: req.key,
            owner: row.previous,
            reason: `row taken over by ${call.client}: expires_at ${row.expired_at} s is not after ${by} (${row.now_s} s)`,
          },
          {
            kind: 'lock.granted',
            key: req.key,
            owner: req.owner,
            ttlUs: req.ttlUs,
            data: { command: 'UPDATE (takeover)', clock: clientNowUs === undefined ? 'server' : 'client' },
          },
        );
      }
      case 'release': {
        const r = await c.query('DELETE FROM lock_keys WHERE key_id = $1 AND key_token = $2', [req.key, req.owner]);
        if (r.rowCount === 0) return answer({ ok: false, holder: null });
        return answer({ ok: true }, { kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' });
      }
      case 'exists': {
        // PdoStore's exists(): our token, and not expired by the same "now" the other statements use.
        const r = await c.query(`SELECT 1 FROM lock_keys WHERE key_id = $1 AND key_token = $2 AND key_expiration > ${now}`, [req.key, req.owner]);
        return answer({ ok: r.rowCount !== null && r.rowCount > 0 });
      }
      case 'get': {
        const r = await c.query<{ key_token: string }>(`SELECT key_token FROM lock_keys WHERE key_id = $1 AND key_expiration > ${now}`, [req.key]);
        return answer({ ok: true, holder: r.rows[0]?.key_token ?? null });
      }
      case 'set':
      case 'del':
        return answer({ ok: false, error: 'the lock table only takes token-checked statements' });
    }
  }

  async close(): Promise<void> {
    await this.client?.end().catch(() => undefined);
    this.client = undefined;
  }
}
