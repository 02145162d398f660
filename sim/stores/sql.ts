import { show } from '../errors.js';
import type { Timer } from '../kernel/kernel.js';
import type { ClientSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import { msToUs, US_PER_S } from '../time.js';
import type { Caller } from '../world/endpoint.js';
import type { Machine } from '../world/machine.js';

import type { World } from '../world/world.js';
import { machineRef } from './checks.js';
import { deployedNodeFor, deployNodes } from './deploy.js';
import { TableDriver } from './table-driver.js';
import type { Capabilities, LockOp, LockReply, StoreCheck, StoreInstance, StoreKind, StoreNode } from './types.js';
import { storeSchema } from './schema-of.js';

export interface SqlPrimarySpec {
  name: string;
  machine: string;
  /** The clients that talk to this primary; clients listed nowhere use the first. */
  clients: string[];
}

export interface SqlSpec extends StoreSpecBase {
  kind: 'sql';
  /** The database node's name (one node), or the store's name (several primaries). */
  name: string;
  machine: string;
  /** Whose clock computes and compares `expires_at`: the database server's (Symfony) or the acquiring client's (many hand-written tables). */
  clock: 'server' | 'client';
  /**
   * The database PdoStore talks to, which decides how "now" becomes whole
   * seconds: MySQL's UNIX_TIMESTAMP() and SQLite's strftime('%s') truncate,
   * PostgreSQL's CAST(EXTRACT(epoch FROM NOW()) AS INT) rounds.
   */
  database: 'mysql' | 'postgresql' | 'sqlite';
  /** PdoStore's initialTtl: how long save() writes the row for before refresh() sets the TTL asked for. */
  initialTtlMs: number;
  /** Several primaries with asynchronous replication between them, or null for one database node. */
  primaries: SqlPrimarySpec[] | null;
  /** How long a row change takes to reach the other primaries. */
  replicationLagMs: number;
  keyPrefix: string;
}

export const SQL_CAPABILITIES: Capabilities = {
  scope: 'remote',
  blocking: false,
  expiring: true,
  sharing: false,
  // Symfony's table has no version column; an auto-increment column bumped on each takeover could be one, but no library hands it out.
  fencingToken: null,
  losesLockWhen: [
    'expires_at passes (whole seconds, by the server clock or by the clock of whoever takes over)',
    'another client whose clock runs ahead takes over early (client-clock tables)',
    'a server clock jump forward (server-clock tables)',
    'two primaries with asynchronous replication both grant it',
  ],
};

/** The rules a lock table follows: the unit of `expires_at`, whose clock, and what a refresh of a missing row does. */
export interface TableRules {
  /** `expires_at` is kept in whole units of this many microseconds (1 s for SQL, 1 ms for MongoDB). */
  readonly unitUs: number;
  readonly clock: 'server' | 'client';
  /** MongoDB's refresh is an upsert and inserts a missing document; SQL's is an UPDATE and finds nothing. */
  readonly refreshInserts: boolean;
  /** "Now" in whole units is the clock rounded to the nearest unit (PostgreSQL's cast), not truncated. */
  readonly roundsNow?: boolean;
  /** Words for the trace: "row" or "document". */
  readonly noun: string;
}

export interface Row {
  readonly owner: string;
  readonly client: string;
  /** In `unitUs` units, on `clockMachine`'s clock. */
  readonly expires: number;
  /** The clock `expires_at` was computed on: the server's, or the writing client's machine. */
  readonly clockMachine: Machine;
  /** The holding ended (by that clock, or by a takeover) though the row may still be there. */
  ended: boolean;
  timer: Timer | undefined;
}

/** What a write did to a row, for replication: the row before (its owner) and after (null: deleted). */
export interface RowChange {
  readonly key: string;
  readonly before: string | null;
  readonly after: Row | null;
}

/**
 * A table with one row (or document) per key: owner token and `expires_at`.
 * A new owner may take over a row whose `expires_at` is not after "now", and
 * what "now" is depends on the rules: the server's clock, or the clock of the
 * client that is taking over (which it sends with its request).
 *
 * The holding interval ends at whichever comes first: the clock the expiry was
 * computed on passing it (the row is then free to anyone who agrees with that
 * clock), or another client taking the row over because its own clock
 * already says so. Either is the truth of the moment; the row itself may stay
 * until someone deletes or replaces it.
 */
export class ExpiringTableNode implements StoreNode {
  readonly name: string;
  readonly machine: Machine;
  protected readonly rows = new Map<string, Row>();
  private up = true;
  private readonly watched = new Set<string>();
  /** Called after every write, with what changed (replication listens here). */
  onChange: ((c: RowChange) => void) | undefined;

  constructor(
    protected readonly world: World,
    name: string,
    machine: string,
    protected readonly rules: TableRules,
  ) {
    this.name = name;
    this.machine = world.machine(machine);
    this.watch(this.machine);
  }

  isUp(): boolean {
    return this.up;
  }

  /** The row for `key`, if any (for tests). */
  row(key: string): Row | undefined {
    return this.rows.get(key);
  }

  /** "Now" in table units, as the statement computes it. */
  private nowUnits(req: LockOp, caller: Caller): { now: number; by: string } {
    if (this.rules.clock === 'client') {
      const clientNowUs =
        'clientNowUs' in req && typeof req.clientNowUs === 'number' ? req.clientNowUs : this.world.machine(caller.machine).clock.read(this.world.nowUs);
      return { now: Math.floor(clientNowUs / this.rules.unitUs), by: `${caller.process}'s clock` };
    }
    const serverUs = this.machine.clock.read(this.world.nowUs);
    const units = this.rules.roundsNow === true ? Math.round(serverUs / this.rules.unitUs) : Math.floor(serverUs / this.rules.unitUs);
    return { now: units, by: 'the server clock' };
  }

  handle(req: LockOp, caller: Caller): LockReply {
    const row = this.rows.get(req.key);
    switch (req.op) {
      case 'acquire':
      case 'refresh': {
        const { now, by } = this.nowUnits(req, caller);
        const expires = now + Math.ceil(req.ttlUs / this.rules.unitUs);
        if (row === undefined) {
          // INSERT (acquire, or MongoDB's upsert); SQL's UPDATE finds no row to extend.
          if (req.op === 'refresh' && !this.rules.refreshInserts) return { ok: false, holder: null };
          this.write(req.key, undefined, req.owner, expires, caller, `inserted`);
          return { ok: true };
        }
        if (row.owner === req.owner) {
          this.write(req.key, row, req.owner, expires, caller, 'extended');
          return { ok: true };
        }
        if (row.expires <= now) {
          if (!row.ended)
            this.end(
              req.key,
              row,
              'lock.expired',
              `${this.rules.noun} taken over by ${caller.process}: expires_at ${this.show(row.expires)} is not after ${by} (${this.show(now)})`,
            );
          this.write(req.key, row, req.owner, expires, caller, 'taken over');
          return { ok: true };
        }
        return { ok: false, holder: row.owner };
      }
      case 'exists': {
        // SELECT 1 ... WHERE token = mine AND expires_at > now, by the statement's clock.
        if (row === undefined || row.owner !== req.owner) return { ok: false };
        return { ok: row.expires > this.nowUnits(req, caller).now };
      }
      case 'release':
        if (row === undefined || row.owner !== req.owner) return { ok: false, holder: row?.owner ?? null };
        this.delete(req.key, row, caller);
        return { ok: true };
      case 'get':
        return { ok: true, holder: row === undefined || row.ended ? null : row.owner };
      case 'set':
      case 'del':
        return { ok: false, error: `the lock ${this.rules.noun === 'row' ? 'table' : 'collection'} only takes token-checked statements` };
    }
  }

  restart(downUs: number): void {
    if (!this.up) return;
    this.up = false;
    // The table is on disk: rows survive, and their expiry keeps passing while the server is down.
    this.world.record('store.down', this.name, this.machine, { reason: 'restart', data: { persistence: 'durable', keysLost: 0 } });
    this.world.kernel.after(downUs, () => {
      this.up = true;
      this.world.record('store.up', this.name, this.machine, { data: { keysKept: this.rows.size } });
    });
  }

  /** Applies a row change made on another primary, if this primary's row still matches the change's before image. */
  applyReplicated(c: RowChange, from: string): void {
    const row = this.rows.get(c.key);
    const current = row?.owner ?? null;
    if (c.after === null && current === null) return;
    if (current !== c.before && current !== c.after?.owner) {
      this.world.record('replication.conflict', this.name, this.machine, {
        key: c.key,
        owner: c.after?.owner ?? c.before ?? undefined,
        reason: `change from ${from} expected ${c.before ?? 'no row'} but found ${current ?? 'no row'}: skipped`,
        data: { from, holder: current ?? '' },
      });
      return;
    }
    const via: Caller = { process: c.after?.client ?? row?.client ?? from, machine: this.machine.name, msg: 0, respond: () => {} };
    if (c.after === null) {
      if (row !== undefined) this.delete(c.key, row, undefined, `replicated delete from ${from}`);
      return;
    }
    if (row !== undefined && row.owner !== c.after.owner && !row.ended) this.end(c.key, row, 'lock.expired', `replicated takeover from ${from}`);
    this.write(c.key, row, c.after.owner, c.after.expires, via, `replicated from ${from}`, c.after.clockMachine, true);
  }

  protected show(units: number): string {
    return this.rules.unitUs === US_PER_S ? `${units} s` : `${units} ms`;
  }

  /** Writes the row for `owner`; `previous` is the row it replaces (same owner: an extension). */
  private write(
    key: string,
    previous: Row | undefined,
    owner: string,
    expires: number,
    caller: Caller,
    how: string,
    clockOf?: Machine,
    replicated = false,
  ): void {
    if (previous !== undefined) this.world.kernel.cancel(previous.timer);
    const clockMachine =
      clockOf !== undefined && this.rules.clock === 'client' ? clockOf : this.rules.clock === 'client' ? this.world.machine(caller.machine) : this.machine;
    this.watch(clockMachine);
    const row: Row = { owner, client: previous?.owner === owner ? previous.client : caller.process, expires, clockMachine, ended: false, timer: undefined };
    this.rows.set(key, row);
    const extend = previous !== undefined && previous.owner === owner && !previous.ended;
    const data: Record<string, string | number> = {
      expiresLocalUs: expires * this.rules.unitUs,
      clock: this.rules.clock === 'client' ? clockMachine.name : 'server',
      how,
    };
    this.world.record(extend ? 'lock.refreshed' : 'lock.granted', this.name, this.machine, {
      key,
      owner,
      ttlUs: undefined,
      peer: caller.process,
      msg: replicated ? undefined : caller.msg,
      data,
    });
    this.plan(key, row);
    if (!replicated) this.onChange?.({ key, before: previous?.owner ?? null, after: row });
    this.changed();
  }

  /** Called after every write and delete; MongoDB starts and stops its TTL monitor here. */
  protected changed(): void {}

  private delete(key: string, row: Row, caller: Caller | undefined, reason = 'released'): void {
    this.rows.delete(key);
    this.world.kernel.cancel(row.timer);
    if (!row.ended)
      this.world.record('lock.released', this.name, this.machine, { key, owner: row.owner, peer: caller?.process ?? row.client, msg: caller?.msg, reason });
    if (caller !== undefined) this.onChange?.({ key, before: row.owner, after: null });
    this.changed();
  }

  /** Ends the holding without touching the row (expiry by its clock, a takeover, a TTL monitor pass). */
  protected end(key: string, row: Row, kind: string, reason: string): void {
    row.ended = true;
    this.world.kernel.cancel(row.timer);
    this.world.record(kind, this.name, this.machine, { key, owner: row.owner, peer: row.client, reason });
  }

  /** Removes a row whose holding may already have ended (MongoDB's TTL monitor). */
  protected remove(key: string, row: Row, reason: string): void {
    this.rows.delete(key);
    if (!row.ended) this.end(key, row, 'lock.expired', reason);
    this.world.kernel.cancel(row.timer);
    this.changed();
  }

  /** Plans the end of the holding for when the row's clock reaches `expires_at`. */
  private plan(key: string, row: Row): void {
    this.world.kernel.cancel(row.timer);
    // The clock reading at which "now" first reaches expires_at: half a unit earlier when now is rounded.
    const limitUs = row.expires * this.rules.unitUs - (this.rules.roundsNow === true && row.clockMachine === this.machine ? this.rules.unitUs / 2 : 0);
    const at = row.clockMachine.clock.trueTimeAt(limitUs, this.world.nowUs);
    row.timer = this.world.kernel.at(at, () => {
      if (this.rows.get(key) !== row || row.ended) return;
      if (row.clockMachine.clock.read(this.world.nowUs) >= limitUs) {
        const whose = this.rules.clock === 'client' ? `${row.clockMachine.name}'s clock (which computed it)` : 'the server clock';
        this.end(key, row, 'lock.expired', `expires_at ${this.show(row.expires)} passed by ${whose}`);
      } else this.plan(key, row);
    });
  }

  private watch(m: Machine): void {
    if (this.watched.has(m.name)) return;
    this.watched.add(m.name);
    m.onClockChange(() => {
      for (const [key, row] of this.rows) if (row.clockMachine === m && !row.ended) this.plan(key, row);
    });
  }
}

export const SQL_COMMANDS = { acquire: 'INSERT or take over', refresh: 'UPDATE', release: 'DELETE', exists: 'SELECT' };

function primariesOf(spec: SqlSpec): SqlPrimarySpec[] {
  return spec.primaries ?? [{ name: spec.name, machine: spec.machine, clients: [] }];
}

/** The SQL lock table store kind: Symfony's PdoStore / DoctrineDbalStore, or a hand-written table on the client's clock. */
export const SQL: StoreKind = {
  kind: 'sql',
  title: 'SQL lock table (PdoStore)',
  capabilities: SQL_CAPABILITIES,
  hazardScenario: 'sql-clock-skew',
  faults: ['store-restart', 'deploy'],
  deployable: ['keyPrefix', 'machine'],
  plainGetSet: false,
  schema: storeSchema({
    kind: 'sql',
    description:
      "A lock table with one row per key (token, expires_at in whole seconds), as Symfony's PdoStore and DoctrineDbalStore keep it; a new owner may take over a row whose expires_at has passed. A TTL under 1 s is refused by refresh() at run time, after save() has written the row for initialTtlMs.",
    name: { default: 'sql', description: "The database node's name (with primaries: the store's name)." },
    machine: { description: 'The database server\u2019s machine; with primaries, defaults to the first primary\u2019s.', required: false },
    properties: {
      clock: {
        enum: ['server', 'client'],
        default: 'server',
        description:
          "Whose clock computes and compares expires_at: the database server's (Symfony: UNIX_TIMESTAMP()), or the client's (many hand-written tables: the client writes its now + ttl, and a client taking over compares with its own now).",
      },
      primaries: {
        type: ['array', 'null'],
        minItems: 2,
        default: null,
        description:
          'Several primaries that replicate to each other asynchronously (null: one database node). Each client talks to the primary that lists it, or to the first. STORES.md: multi-primary needs synchronous replication or one node.',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'machine'],
          properties: {
            name: { $ref: '#/definitions/name' },
            machine: { $ref: '#/definitions/name' },
            clients: { type: 'array', items: { $ref: '#/definitions/name' }, default: [], description: 'The clients that use this primary.' },
          },
        },
      },
      replicationLagMs: { $ref: '#/definitions/ms', default: 1000, description: 'How long a row change takes to reach the other primaries.' },
      database: {
        enum: ['mysql', 'postgresql', 'sqlite'],
        default: 'mysql',
        description:
          "The database behind PdoStore, which decides how the server's now becomes whole seconds: MySQL and SQLite truncate, PostgreSQL's CAST(EXTRACT(epoch FROM NOW()) AS INT) rounds to the nearest second.",
      },
      initialTtlMs: {
        $ref: '#/definitions/positiveMs',
        default: 300000,
        description: "PdoStore's initialTtl: save() writes the row for this long before refresh() applies the client's TTL.",
      },
      keyPrefix: { type: 'string', maxLength: 200, default: '', description: 'Prepended to every key; a deploy may change it.' },
    },
  }),
  normalize(input: Record<string, unknown>, check: StoreCheck): SqlSpec {
    const rawPrimaries = (input.primaries as Array<{ name: string; machine: string; clients?: string[] }> | null | undefined) ?? null;
    const primaries = rawPrimaries === null ? null : rawPrimaries.map((p) => ({ name: p.name, machine: p.machine, clients: p.clients ?? [] }));
    const spec: SqlSpec = {
      kind: 'sql',
      name: (input.name as string | undefined) ?? 'sql',
      machine: (input.machine as string | undefined) ?? primaries?.[0]?.machine ?? '',
      clock: (input.clock as SqlSpec['clock'] | undefined) ?? 'server',
      primaries,
      replicationLagMs: (input.replicationLagMs as number | undefined) ?? 1000,
      keyPrefix: (input.keyPrefix as string | undefined) ?? '',
      database: (input.database as SqlSpec['database'] | undefined) ?? 'mysql',
      initialTtlMs: (input.initialTtlMs as number | undefined) ?? 300_000,
    };
    if (spec.machine === '')
      check.issues.push({ path: `${check.path}.machine`, message: 'the sql store needs a machine (or primaries, each with its machine)' });
    else machineRef(check, spec.machine, 'machine');
    const clientNames = check.scenario.clients.map((c) => c.name);
    const assigned = new Set<string>();
    primaries?.forEach((p, pi) => {
      machineRef(check, p.machine, `primaries[${pi}].machine`);
      if (primaries.findIndex((q) => q.name === p.name) !== pi)
        check.issues.push({ path: `${check.path}.primaries[${pi}].name`, message: `primary ${show(p.name)} is defined twice` });
      p.clients.forEach((c, ci) => {
        const at = `${check.path}.primaries[${pi}].clients[${ci}]`;
        if (!clientNames.includes(c)) check.issues.push({ path: at, message: `no client named ${show(c)} (clients: ${clientNames.join(', ')})` });
        else if (assigned.has(c)) check.issues.push({ path: at, message: `client ${show(c)} is assigned to two primaries` });
        assigned.add(c);
      });
    });
    check.scenario.faults.forEach((f, i) => {
      if (f.kind === 'deploy' && 'machine' in f.store && spec.primaries !== null)
        check.issues.push({
          path: `faults[${i}].store.machine`,
          message: 'a deploy cannot move clients of a multi-primary sql store: give them another primary instead',
        });
    });
    return spec;
  },
  nodeNames: (spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>) =>
    (spec as SqlSpec).primaries === null ? deployNodes(spec, scenario).map((n) => n.name) : primariesOf(spec as SqlSpec).map((p) => p.name),
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance {
    const sql = spec as SqlSpec;
    const rules: TableRules = { unitUs: US_PER_S, clock: sql.clock, refreshInserts: false, noun: 'row', roundsNow: sql.database === 'postgresql' };
    const primaries = sql.primaries === null ? deployNodes(spec, scenario) : primariesOf(sql);
    const nodes = primaries.map((p) => new ExpiringTableNode(world, p.name, p.machine, rules));
    if (sql.primaries !== null) {
      const lagUs = msToUs(sql.replicationLagMs);
      for (const node of nodes) {
        // The lock is held while any primary's row says so: a client on that primary is kept out.
        world.setNodeGroup(node.name, sql.name, 1);
        node.onChange = (c) => {
          for (const other of nodes) if (other !== node) world.kernel.after(lagUs, () => other.applyReplicated(c, node.name));
        };
      }
    }
    return {
      nodes: new Map(nodes.map((n) => [n.name, n])),
    };
  },
  driver(spec: StoreSpecBase, client: ClientSpec) {
    const sql = spec as SqlSpec;
    const primaries = primariesOf(sql);
    const i = primaries.findIndex((p) => p.clients.includes(client.name));
    return new TableDriver(
      { name: primaries[Math.max(i, 0)]!.name },
      sql.keyPrefix,
      sql.clock === 'client',
      SQL_COMMANDS,
      {
        store: 'PdoStore',
        exception: 'PDOException',
        minTtl: { minUs: US_PER_S, initialUs: msToUs(sql.initialTtlMs) },
      },
      sql.primaries === null ? deployedNodeFor(spec) : undefined,
    );
  },
};
