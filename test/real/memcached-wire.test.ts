import { COMMANDS_PER_WRITE } from '../../sim/real/adapters/tick-writes.js';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { memcachedSocket, MemcachedNode } from '../../sim/real/adapters/memcached.js';
import { Harness, type MemcachedServer } from '../../sim/real/harness/index.js';
import { describeReal, eventually } from './support.js';

const A = { client: 'A', msg: 1 };
const B = { client: 'B', msg: 2 };

/** Counts the writes `socket` makes (chunks per write) until `stop()`. */
function countWrites(socket: Socket): { writes: number[]; stop: () => void } {
  const writes: number[] = [];
  const writev = socket._writev?.bind(socket);
  const write = socket._write.bind(socket);
  socket._writev = (chunks, cb) => {
    writes.push(chunks.length);
    writev!(chunks, cb);
  };
  socket._write = (chunk, encoding, cb) => {
    writes.push(1);
    write(chunk, encoding, cb);
  };
  return {
    writes,
    stop: () => {
      delete (socket as Partial<Socket>)._writev;
      delete (socket as Partial<Socket>)._write;
    },
  };
}

describeReal('the memcached adapter on the wire', () => {
  const h = new Harness();
  let server: MemcachedServer;
  const opened: MemcachedNode[] = [];

  async function open(): Promise<MemcachedNode> {
    const n = new MemcachedNode('memcached', server.url);
    await n.open();
    opened.push(n);
    return n;
  }

  beforeAll(async () => {
    server = await h.memcached({ name: 'wire' });
  });
  afterAll(async () => {
    await Promise.all(opened.map((n) => n.close()));
    await h.close();
  });

  it("sends a delete's read of the holder and the delete itself in one write, and names whose lock it deleted", async () => {
    const a = await open();
    const b = await open();
    expect((await a.handle({ op: 'acquire', key: 'w1', owner: 'A:1', ttlUs: 5_000_000 }, A)).reply).toEqual({ ok: true });
    const socket = memcachedSocket(b.client, server.url.replace('memcached://', ''));
    expect(socket).toBeDefined();
    const spy = countWrites(socket!);
    try {
      const d = await b.handle({ op: 'del', key: 'w1', owner: 'B:1' }, B);
      expect(d.reply).toEqual({ ok: true });
      expect(d.facts).toEqual([expect.objectContaining({ kind: 'lock.deleted', owner: 'A:1', reason: 'delete by B' })]);
      expect(spy.writes).toEqual([2]);
    } finally {
      spy.stop();
    }
    // Nothing left to delete: no holder, nothing released.
    expect((await b.handle({ op: 'del', key: 'w1', owner: 'B:1' }, B)).reply).toEqual({ ok: false, holder: null });
  });

  it('sends the acquires of one tick from many callers in writes of eight, each answered', async () => {
    const n = await open();
    const spy = countWrites(memcachedSocket(n.client, server.url.replace('memcached://', ''))!);
    try {
      const replies = await Promise.all(
        Array.from({ length: 10 }, (_, i) => n.handle({ op: 'acquire', key: `w2-${i}`, owner: `A:${i}`, ttlUs: 5_000_000 }, A)),
      );
      expect(replies.map((r) => r.reply)).toEqual(Array.from({ length: 10 }, () => ({ ok: true })));
      expect(spy.writes).toEqual([COMMANDS_PER_WRITE, 10 - COMMANDS_PER_WRITE]);
    } finally {
      spy.stop();
    }
  });

  it('answers requests sent together before it has connected, each after the one connection is open', async () => {
    const n = new MemcachedNode('memcached', server.url);
    opened.push(n);
    const replies = await Promise.all(Array.from({ length: 5 }, (_, i) => n.handle({ op: 'acquire', key: `w4-${i}`, owner: `A:${i}`, ttlUs: 5_000_000 }, A)));
    expect(replies.map((r) => r.reply)).toEqual(Array.from({ length: 5 }, () => ({ ok: true })));
  });

  it('after a restart connects again before it sends a request, so a delete and its read still share the one connection', async () => {
    const n = await open();
    await n.handle({ op: 'acquire', key: 'w3', owner: 'A:1', ttlUs: 30_000_000 }, A);
    await server.restart(0);
    expect(
      await eventually(
        async () => (await n.handle({ op: 'acquire', key: 'w3', owner: 'B:1', ttlUs: 30_000_000 }, B).catch(() => undefined))?.reply.ok === true,
      ),
    ).toBe(true);
    const d = await n.handle({ op: 'del', key: 'w3', owner: 'B:1' }, B);
    expect(d.facts).toEqual([expect.objectContaining({ kind: 'lock.released', owner: 'B:1' })]);
  });
});
