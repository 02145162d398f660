import fc from 'fast-check';
import { crc32 as zlibCrc32 } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CONNECTION_LOST } from '../../sim/stores/postgres-driver.js';
import { crc32, POSTGRES, PostgresNode } from '../../sim/stores/postgres.js';
import type { LockOp } from '../../sim/stores/types.js';
import { NodeHarness, pick, runDoc } from '../support/session-harness.js';
import { refusal } from '../support/refusal.js';

const S = 1_000_000;

const harness = (): NodeHarness<PostgresNode> => new NodeHarness((w) => new PostgresNode(w, { kind: 'postgres', name: 'postgres', machine: 'db' }));

/** A request on connection `conn`; the first request of a connection opens it. */
const on = (conn: string, op: LockOp, fresh = false): Record<string, unknown> => ({ ...op, conn, fresh });
const lock = (owner: string, key = 'job', extra: Partial<{ shared: boolean; waitUs: number | null }> = {}): LockOp => ({
  op: 'acquire',
  key,
  owner,
  ttlUs: 10 * S,
  ...extra,
});
const unlock = (owner: string, key = 'job'): LockOp => ({ op: 'release', key, owner });

/**
 * Two different lock names with the same CRC-32, found by a deterministic
 * birthday search: names "lock-<x>" where x runs through Knuth's
 * multiplicative hash of 0, 1, 2... in base 36. (Names that differ only in a
 * few neighbouring characters never collide: CRC-32 detects every burst of
 * up to 32 bits, so the names must differ more widely.)
 */
function findCollision(): [string, string] {
  const seen = new Map<number, string>();
  for (let n = 0; n < 1_000_000; n++) {
    const name = `lock-${(Math.imul(n, 2654435761) >>> 0).toString(36)}`;
    const h = crc32(name);
    const other = seen.get(h);
    if (other !== undefined) return [other, name];
    seen.set(h, name);
  }
  throw new Error('no collision among the first million names');
}

const scenario = (store: Record<string, unknown>, clients: Array<Record<string, unknown>>): unknown => ({
  name: 'bad',
  machines: [{ name: 'app1' }, { name: 'db' }],
  store,
  clients,
});

const inputIssues = (doc: unknown): string => refusal(doc);

describe('PostgreSQL advisory locks (STORES.md: session-bound, no expiry, blocking, shared, crc32 names)', () => {
  it('declares the capability row of the Symfony table: remote, blocking, not expiring, sharing, no fencing token', () => {
    expect(POSTGRES.capabilities).toMatchObject({ scope: 'remote', blocking: true, expiring: false, sharing: true, fencingToken: null });
    expect(POSTGRES.capabilities.losesLockWhen.join(' ')).toMatch(/connection drops.*not told/);
    expect(POSTGRES.faults).toEqual(['store-restart', 'connection-loss', 'deploy']);
  });

  it('pg_try_advisory_lock refuses a second session while the lock is held and names the holder', () => {
    const h = harness();
    expect(h.at(0, 'A', on('A#1', lock('A:1'), true))).toEqual({ ok: true });
    expect(h.at(S, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: false, holder: 'A:1' });
  });

  it('an advisory lock never expires: it is still held an hour later, with no expiry planned', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.advance(3600 * S);
    expect(h.at(3600 * S, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.kinds()).toEqual(['0 lock.granted A:1']);
    expect(h.events('lock.granted')[0]!.data?.expiresLocalUs).toBeUndefined();
  });

  it('the client believes it holds the lock with no time limit (the driver reports no expiry)', () => {
    const doc = runDoc({
      store: { kind: 'postgres', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1', ttlMs: 1000, workMs: 5000, checkRemaining: true }],
    });
    const ok = pick(doc, 'acquire.ok', 'A')[0]!;
    expect(ok.believes).toEqual({ holds: true, owner: 'A:1' });
    expect(ok.ttlUs).toBeUndefined();
    expect(pick(doc, 'write.done', 'A')).toHaveLength(1);
    expect(doc.verdict.outcome).toBe('safe');
  });

  it('pg_advisory_lock blocks in the server and grants waiters first come, first served', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(1, 'B', on('B#1', lock('B:1', 'job', { waitUs: null }), true))).toBe('deferred');
    expect(h.at(2, 'C', on('C#1', lock('C:1', 'job', { waitUs: null }), true))).toBe('deferred');
    expect(h.events('lock.queued').map((e) => [e.owner, e.data?.position])).toEqual([
      ['B:1', 1],
      ['C:1', 2],
    ]);
    expect(h.at(5 * S, 'A', on('A#1', unlock('A:1')))).toEqual({ ok: true });
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: 5 * S, reply: { ok: true } }]);
    h.at(6 * S, 'B', on('B#1', unlock('B:1')));
    expect(h.late.map((l) => [l.client, l.atUs])).toEqual([
      ['B', 5 * S],
      ['C', 6 * S],
    ]);
  });

  it('a blocked request gives up after its wait time (lock_timeout) and hears the lock is held', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(0, 'B', on('B#1', lock('B:1', 'job', { waitUs: 2 * S }), true))).toBe('deferred');
    h.advance(3 * S);
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: 2 * S, reply: { ok: false, holder: 'A:1' } }]);
    // It left the queue: when A lets go, nobody is granted.
    h.at(4 * S, 'A', on('A#1', unlock('A:1')));
    expect(h.events('lock.granted').map((e) => e.owner)).toEqual(['A:1']);
  });

  it('shared locks are held side by side and marked shared; an exclusive request waits for every one of them', () => {
    const h = harness();
    expect(h.at(0, 'R1', on('R1#1', lock('R1:1', 'job', { shared: true }), true))).toEqual({ ok: true });
    expect(h.at(1, 'R2', on('R2#1', lock('R2:1', 'job', { shared: true }), true))).toEqual({ ok: true });
    expect(h.events('lock.granted').map((e) => e.data?.shared)).toEqual([true, true]);
    expect(h.at(2, 'W', on('W#1', lock('W:1', 'job', { waitUs: null }), true))).toBe('deferred');
    h.at(3, 'R1', on('R1#1', unlock('R1:1')));
    expect(h.late).toEqual([]);
    h.at(4, 'R2', on('R2#1', unlock('R2:1')));
    expect(h.late.map((l) => [l.client, l.reply.ok])).toEqual([['W', true]]);
    expect(h.events('lock.granted').at(-1)?.data?.shared).toBeUndefined();
  });

  it('a shared request queues behind a waiting exclusive one rather than starving it', () => {
    const h = harness();
    h.at(0, 'R1', on('R1#1', lock('R1:1', 'job', { shared: true }), true));
    h.at(1, 'W', on('W#1', lock('W:1', 'job', { waitUs: null }), true));
    expect(h.at(2, 'R2', on('R2#1', lock('R2:1', 'job', { shared: true }), true))).toEqual({ ok: false, holder: 'R1:1' });
  });

  it("unlocks only from the session that holds the lock; another session's unlock fails", () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(1, 'B', on('B#1', unlock('A:1'), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.at(2, 'A', on('A#1', unlock('A:1')))).toEqual({ ok: true });
    expect(h.kinds()).toEqual(['0 lock.granted A:1', '2 lock.released A:1']);
  });

  it('the refresh is an existence check on the own session (Symfony putOffExpiration): it fails once the lock has gone', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    expect(h.at(S, 'A', on('A#1', { op: 'refresh', key: 'job', owner: 'A:1', ttlUs: S }))).toEqual({ ok: true });
    h.at(2 * S, 'A', on('A#1', unlock('A:1')));
    expect(h.at(3 * S, 'A', on('A#1', { op: 'refresh', key: 'job', owner: 'A:1', ttlUs: S }))).toEqual({ ok: false, holder: null });
  });

  it('a lost TCP connection releases the lock silently; the next query on that connection fails with "connection lost"', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.advance(S);
    expect(h.node.connectionLost('A', CONNECTION_LOST)).toBe(1);
    expect(h.kinds()).toEqual(['0 lock.granted A:1', `${S} session.ended`, `${S} lock.lost A:1`]);
    expect(h.events('lock.lost')[0]).toMatchObject({ reason: 'connection lost', peer: 'A' });
    // Nothing was sent to A: it hears only when it next asks.
    expect(h.late).toEqual([]);
    expect(h.at(2 * S, 'B', on('B#1', lock('B:1'), true))).toEqual({ ok: true });
    expect(h.at(3 * S, 'A', on('A#1', unlock('A:1')))).toEqual({ ok: false, error: 'connection lost' });
    // A fresh connection works again.
    expect(h.at(4 * S, 'A', on('A#2', lock('A:2', 'other'), true))).toEqual({ ok: true });
  });

  it('the client keeps believing after its connection drops and learns of it only at its next request', () => {
    const doc = runDoc({
      store: { kind: 'postgres', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1', workMs: 5000 }],
      faults: [{ kind: 'connection-loss', target: 'A', atMs: 1000 }],
    });
    const lost = pick(doc, 'lock.lost')[0]!;
    const learned = pick(doc, 'session.lost', 'A')[0]!;
    expect(lost.timeUs).toBe(S);
    expect(pick(doc, 'write.request', 'A')[0]!.believes).toMatchObject({ holds: true, owner: 'A:1' });
    expect(learned.timeUs).toBeGreaterThan(5 * S);
    expect(learned.reason).toBe('connection lost');
    // Its release throws too: PostgreSqlStore::delete() queries the dead connection.
    expect(pick(doc, 'release.error', 'A')[0]!.reason).toBe('connection lost');
    expect(pick(doc, 'exception.releasing', 'A')[0]).toMatchObject({ data: { chain: ['LockReleasingException', 'PDOException'] } });
    expect(doc.verdict.lostLocks).toMatchObject([{ client: 'A', how: 'lost', reason: 'connection lost' }]);
  });

  it('after a lost connection PostgreSqlStore keeps the dead connection: every later call throws, and it never reconnects', () => {
    const doc = runDoc({
      store: { kind: 'postgres', machine: 'db' },
      clients: [{ name: 'A', machine: 'app1', workMs: 1000, iterations: 3, thinkMs: 500, acquire: { retries: 1 } }],
      faults: [{ kind: 'connection-loss', target: 'A', atMs: 1300 }],
    });
    expect(pick(doc, 'lock.granted').map((e) => [e.owner, e.data?.conn])).toEqual([['A:1', 'A#1']]);
    // The first query after the loss goes out and hears the connection is gone; later ones fail at once, sending nothing.
    expect(pick(doc, 'acquire.error', 'A').map((e) => [e.owner, e.reason])).toEqual([
      ['A:2', 'connection lost'],
      ['A:2', 'no connection to the server'],
      ['A:3', 'no connection to the server'],
      ['A:3', 'no connection to the server'],
    ]);
    expect(pick(doc, 'acquire.request', 'A')).toHaveLength(2);
    expect(pick(doc, 'exception.acquiring', 'A').map((e) => e.data?.chain)).toEqual([
      ['LockAcquiringException', 'PDOException'],
      ['LockAcquiringException', 'PDOException'],
    ]);
  });

  it('a server restart releases every lock, refuses connections while down, and old connections fail afterwards', () => {
    const h = harness();
    h.at(0, 'A', on('A#1', lock('A:1'), true));
    h.at(0, 'B', on('B#1', lock('B:1', 'job', { waitUs: null }), true));
    h.advance(S);
    h.node.restart(2 * S);
    expect(h.node.isUp()).toBe(false);
    expect(h.kinds()).toEqual(['0 lock.granted A:1', '0 lock.queued B:1', `${S} store.down`, `${S} session.ended`, `${S} lock.lost A:1`, `${S} session.ended`]);
    expect(h.events('lock.lost')[0]!.reason).toBe('restart');
    expect(h.late).toEqual([{ client: 'B', msg: 2, atUs: S, reply: { ok: false, error: 'connection lost' } }]);
    h.advance(3 * S);
    expect(h.node.isUp()).toBe(true);
    expect(h.at(3 * S, 'A', on('A#1', unlock('A:1')))).toEqual({ ok: false, error: 'connection lost' });
    expect(h.at(3 * S, 'C', on('C#1', lock('C:1'), true))).toEqual({ ok: true });
  });

  it("a crashed client's connection closes, and the server frees its locks at once", () => {
    const doc = runDoc({
      store: { kind: 'postgres', machine: 'db' },
      clients: [
        { name: 'A', machine: 'app1', workMs: 5000 },
        { name: 'B', machine: 'app2', startMs: 500, acquire: { mode: 'blocking', poll: false } },
      ],
      faults: [{ kind: 'crash', target: 'A', atMs: 1000 }],
    });
    expect(pick(doc, 'lock.lost')[0]).toMatchObject({ owner: 'A:1', reason: 'process exit', timeUs: S });
    expect(pick(doc, 'lock.granted').map((e) => [e.owner, e.timeUs])).toEqual([
      ['A:1', expect.any(Number)],
      ['B:1', S],
    ]);
    expect(doc.verdict.outcome).toBe('safe');
    expect(doc.verdict.lostLocks).toEqual([]);
  });

  it('crc32 is PHP’s (IEEE) CRC-32, as zlib computes it', () => {
    for (const text of ['', 'job', 'The quick brown fox jumps over the lazy dog', 'clé-ünïcode', 'lock-12345']) {
      expect(crc32(text)).toBe(zlibCrc32(text));
    }
    expect(crc32('The quick brown fox jumps over the lazy dog')).toBe(0x414fa339);
    // ASCII names are hashed as they are, others through their UTF-8 bytes: both agree with zlib, wherever the first non-ASCII character is.
    fc.assert(
      fc.property(fc.string(), fc.string({ unit: 'grapheme' }), (ascii, any) => {
        expect(crc32(ascii)).toBe(zlibCrc32(ascii));
        expect(crc32(ascii + any)).toBe(zlibCrc32(ascii + any));
      }),
    );
  });

  it('two different names with the same crc32 are one advisory lock, so they block each other', () => {
    const [a, b] = findCollision();
    expect([a, b]).toEqual(['lock-1y0l1fx', 'lock-4op5vd']);
    expect(a).not.toBe(b);
    expect(crc32(a)).toBe(crc32(b));
    const h = harness();
    expect(h.at(0, 'A', on('A#1', lock('A:1', a), true))).toEqual({ ok: true });
    expect(h.at(1, 'B', on('B#1', lock('B:1', b), true))).toEqual({ ok: false, holder: 'A:1' });
    expect(h.at(2, 'C', on('C#1', lock('C:1', 'lock-1y0l1fy'), true))).toEqual({ ok: true });
  });

  it('a colliding name blocks a whole run: B waits for A though they lock different keys', () => {
    const [a, b] = findCollision();
    const doc = runDoc({
      store: { kind: 'postgres', machine: 'db' },
      clients: [
        { name: 'A', machine: 'app1', key: a, workMs: 2000 },
        { name: 'B', machine: 'app2', key: b, startMs: 100, workMs: 100, acquire: { mode: 'blocking', poll: false } },
      ],
    });
    const released = pick(doc, 'lock.released').find((e) => e.owner === 'A:1')!;
    const bGranted = pick(doc, 'lock.granted').find((e) => e.owner === 'B:1')!;
    expect(pick(doc, 'lock.queued')[0]).toMatchObject({ owner: 'B:1', key: b, data: { holder: 'A:1', lockId: crc32(a) } });
    expect(bGranted.timeUs).toBe(released.timeUs);
  });

  it('refuses the exists-then-set and plain-DEL mistakes: advisory locks have no plain GET, SET or DEL', () => {
    const message = inputIssues(
      scenario({ kind: 'postgres', machine: 'db' }, [{ name: 'A', machine: 'app1', acquire: { method: 'exists-then-set' }, release: { method: 'plain-del' } }]),
    );
    expect(message).toContain('bad.json: clients[0].acquire.method: the postgres store has no plain GET and SET to get wrong');
    expect(message).toContain('bad.json: clients[0].release.method: the postgres store has no plain DEL');
  });

  it('refuses a connection-loss aimed at no client, and a restart aimed at no server', () => {
    const message = inputIssues({
      ...(scenario({ kind: 'postgres', machine: 'db' }, [{ name: 'A', machine: 'app1' }]) as object),
      faults: [
        { kind: 'connection-loss', target: 'B', atMs: 1 },
        { kind: 'store-restart', target: 'pg', atMs: 1, downMs: 1 },
      ],
    });
    expect(message).toContain('faults[0].target: no client named "B"');
    expect(message).toContain('faults[1].target: no store node named "pg" (store nodes: postgres)');
  });

  it('refuses a postgres store on an unknown machine', () => {
    expect(inputIssues(scenario({ kind: 'postgres', machine: 'dbx' }, [{ name: 'A', machine: 'app1' }]))).toContain(
      'bad.json: store.machine: no machine named "dbx"',
    );
  });
});
