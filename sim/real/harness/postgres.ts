import { spawn } from 'node:child_process';
import { join } from 'node:path';
import pg from 'pg';
import { findBinary, POSTGRES_DIRS } from './binaries.js';
import { freePort } from './ports.js';
import { Server, ServerClock, tempDir } from './server.js';
import { ServerError, ServerProcess } from './server-process.js';
import { serverUser } from './system-user.js';

export interface PostgresOptions {
  readonly name?: string;
  /** Run under a steppable wall clock (now() and so PdoStore's expiry read it). */
  readonly clock?: boolean;
}

/** Asks a server something with a short-lived connection. */
async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A throwaway PostgreSQL cluster: initdb into a temporary directory and a
 * postgres on a free loopback port, run as an unprivileged user when the
 * harness is root. Durability is off (fsync), which no lock story needs.
 */
export class PostgresServer extends Server {
  readonly kind = 'postgres';
  readonly name: string;
  protected readonly proc: ServerProcess;
  protected readonly dir: string;
  override readonly clock: ServerClock | undefined;
  private readonly init: () => Promise<void>;
  private initialized = false;

  private constructor(
    readonly port: number,
    opts: PostgresOptions,
  ) {
    super();
    this.name = opts.name ?? 'postgres';
    const postgres = findBinary('postgres', 'postgresql', POSTGRES_DIRS);
    const initdb = findBinary('initdb', 'postgresql', POSTGRES_DIRS);
    const user = serverUser();
    this.dir = tempDir('postgres', user);
    this.clock = opts.clock === true ? new ServerClock(this.dir) : undefined;
    const data = join(this.dir, 'data');
    const logFile = join(this.dir, 'postgres.log');
    // initdb runs before the first start (see `init`), without blocking this process.
    this.init = () =>
      new Promise<void>((resolve, reject) => {
        const p = spawn(initdb, ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C'], {
          stdio: ['ignore', 'ignore', 'pipe'],
          ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
        });
        let stderr = '';
        p.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
        p.on('error', (err) => reject(new ServerError(`initdb failed for ${this.name}: ${err.message}`)));
        p.on('exit', (code) => (code === 0 ? resolve() : reject(new ServerError(`initdb failed for ${this.name}: ${stderr.trim()}`))));
      });
    const args = [
      '-D',
      data,
      '-p',
      String(port),
      '-k',
      this.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=300',
      '-c',
      'logging_collector=off',
    ];
    const env = this.clock?.env();
    this.proc = new ServerProcess(
      `postgres ${this.name} on 127.0.0.1:${port}`,
      () => ({
        command: postgres,
        args,
        cwd: this.dir,
        logFile,
        ...(env === undefined ? {} : { env }),
        ...(user === undefined ? {} : { uid: user.uid, gid: user.gid }),
      }),
      async () => (await query(this.url, 'SELECT 1 AS one'))[0]?.one === 1,
      30_000,
      // SIGINT is PostgreSQL's fast shutdown: sessions are ended, their advisory locks freed.
      'SIGINT',
    );
  }

  static async start(opts: PostgresOptions = {}): Promise<PostgresServer> {
    const s = new PostgresServer(await freePort(), opts);
    await s.start();
    return s;
  }

  override async start(): Promise<void> {
    if (!this.initialized) {
      await this.init();
      this.initialized = true;
    }
    await super.start();
  }

  get url(): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres`;
  }

  /** The backends (sessions) of clients, by pid and application name. */
  async backends(): Promise<Array<{ pid: number; application: string }>> {
    const rows = await query<{ pid: number; application_name: string }>(
      this.url,
      "SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend' AND pid <> pg_backend_pid()",
    );
    return rows.map((r) => ({ pid: r.pid, application: r.application_name }));
  }

  /** Ends one backend as a lost connection would: its session and its advisory locks go. */
  async terminateBackend(pid: number): Promise<boolean> {
    const rows = await query<{ ok: boolean }>(this.url, 'SELECT pg_terminate_backend($1) AS ok', [pid]);
    return rows[0]?.ok === true;
  }
}
