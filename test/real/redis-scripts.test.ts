import { COMMANDS_PER_WRITE } from '../../sim/real/adapters/tick-writes.js';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { RedisNode } from '../../sim/real/adapters/redis.js';
import { Harness, type RedisServer } from '../../sim/real/harness/index.js';
import { describeReal, eventually } from './support.js';

const A = { client: 'A', msg: 1 };

/** How many times the server ran each command since its statistics were last reset, from INFO commandstats. */
async function calls(r: Redis): Promise<Record<string, number>> {
  const out: Record<string, number> = {};
  for (const m of (await r.info('commandstats')).matchAll(/^cmdstat_(\w+):calls=(\d+)/gm)) out[m[1]!] = Number(m[2]);
  return out;
}

describeReal('the Redis adapter on the wire', () => {
  const h = new Harness();
  let redis: RedisServer;
  const opened: RedisNode[] = [];

  async function open(name: string, url: string): Promise<RedisNode> {
    const n = new RedisNode(name, url);
    await n.open();
    opened.push(n);
    return n;
  }

  beforeAll(async () => {
    redis = await h.redis({ name: 'wire' });
  });
  afterAll(async () => {
    await Promise.all(opened.map((n) => n.close()));
    await h.close();
  });

  it('sends each lock script whole once (EVAL) and by its SHA1 (EVALSHA) after that', async () => {
    const n = await open('wire', redis.url);
    await n.redis.script('FLUSH');
    await n.redis.config('RESETSTAT');
    for (let i = 1; i <= 5; i++) {
      expect((await n.handle({ op: 'acquire', key: 's1', owner: `A:${i}`, ttlUs: 5_000_000 }, A)).reply).toEqual({ ok: true, fence: i });
      expect((await n.handle({ op: 'release', key: 's1', owner: `A:${i}` }, A)).reply).toEqual({ ok: true });
    }
    const c = await calls(n.redis);
    // Two scripts (acquire, release): each sent whole after its first EVALSHA answered NOSCRIPT.
    expect(c.eval).toBe(2);
    expect(c.evalsha).toBeGreaterThanOrEqual(8);
  });

  it('sends a script again after a restart emptied the server script cache, and the lock works as before', async () => {
    const server = await h.redis({ name: 'forgetful', persistence: 'none' });
    const n = await open('forgetful', server.url);
    expect((await n.handle({ op: 'acquire', key: 's2', owner: 'A:1', ttlUs: 5_000_000 }, A)).reply).toEqual({ ok: true, fence: 1 });
    await server.restart(0);
    let granted: unknown;
    expect(
      await eventually(async () => {
        granted = (await n.handle({ op: 'acquire', key: 's2', owner: 'A:2', ttlUs: 5_000_000 }, A).catch(() => undefined))?.reply;
        return granted !== undefined;
      }),
    ).toBe(true);
    // The restart lost the key and its counter: a fresh grant, fencing token 1 again.
    expect(granted).toEqual({ ok: true, fence: 1 });
    expect((await n.handle({ op: 'release', key: 's2', owner: 'A:2' }, A)).reply).toEqual({ ok: true });
    const c = await calls(n.redis);
    expect(c.eval).toBe(2);
  });

  it('sends the commands of one tick in writes of eight, their replies in order', async () => {
    const n = await open('wire', redis.url);
    const socket = n.redis.stream;
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
    try {
      const replies = await Promise.all(
        Array.from({ length: 20 }, (_, i) => n.handle({ op: 'acquire', key: `s3:${i}`, owner: `A:${i}`, ttlUs: 5_000_000 }, A)),
      );
      expect(replies.map((r) => r.reply)).toEqual(Array.from({ length: 20 }, () => ({ ok: true, fence: 1 })));
      // Eight to a write, so that the server starts on the first while the rest are issued.
      expect(writes).toEqual([COMMANDS_PER_WRITE, COMMANDS_PER_WRITE, 20 - 2 * COMMANDS_PER_WRITE]);
      // A command alone is not held back beyond its tick.
      expect((await n.handle({ op: 'get', key: 's3:7' }, A)).reply).toEqual({ ok: true, holder: 'A:7' });
    } finally {
      delete (socket as Partial<typeof socket>)._writev;
      delete (socket as Partial<typeof socket>)._write;
    }
  });

  it('answers an acquire by the holder itself as an extension with its own fencing token, and anyone else with the holder', async () => {
    const n = await open('wire', redis.url);
    expect((await n.handle({ op: 'acquire', key: 's4', owner: 'A:1', ttlUs: 300_000 }, A)).reply).toEqual({ ok: true, fence: 1 });
    const again = await n.handle({ op: 'acquire', key: 's4', owner: 'A:1', ttlUs: 5_000_000 }, A);
    expect(again.reply).toEqual({ ok: true, fence: 1 });
    expect(again.facts).toEqual([expect.objectContaining({ kind: 'lock.refreshed', owner: 'A:1', fence: 1 })]);
    expect(await n.redis.pttl('s4')).toBeGreaterThan(1_000);
    expect((await n.handle({ op: 'acquire', key: 's4', owner: 'B:1', ttlUs: 5_000_000 }, A)).reply).toEqual({ ok: false, holder: 'A:1' });
    expect((await n.handle({ op: 'release', key: 's4', owner: 'B:1' }, A)).reply).toEqual({ ok: false, holder: 'A:1' });
    expect((await n.handle({ op: 'release', key: 's4', owner: 'A:1' }, A)).reply).toEqual({ ok: true });
    expect((await n.handle({ op: 'release', key: 's4', owner: 'A:1' }, A)).reply).toEqual({ ok: false, holder: null });
  });

  it('without the fencing counter (a Redlock node) grants with no token and leaves no counter behind', async () => {
    const n = new RedisNode('plain', redis.url, false);
    await n.open();
    opened.push(n);
    expect((await n.handle({ op: 'acquire', key: 's5', owner: 'A:1', ttlUs: 5_000_000 }, A)).reply).toEqual({ ok: true, fence: undefined });
    expect(await n.redis.exists('s5:fence')).toBe(0);
  });
});
