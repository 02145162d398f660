import type { Socket } from 'node:net';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { COMMANDS_PER_WRITE, TickWrites } from '../sim/real/adapters/tick-writes.js';

/** A stream with Node's own corking that records what each write to the "wire" carried. */
function wire(): { socket: Socket; writes: string[][] } {
  const writes: string[][] = [];
  const w = new Writable({
    write(chunk: Buffer, _enc, cb) {
      writes.push([chunk.toString()]);
      cb();
    },
    writev(chunks, cb) {
      writes.push(chunks.map((c) => String(c.chunk)));
      cb();
    },
  });
  return { socket: w as unknown as Socket, writes };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('TickWrites', () => {
  it('sends a tick of commands in writes of at most COMMANDS_PER_WRITE, in order, the first before the tick ends', async () => {
    const { socket, writes } = wire();
    const tw = new TickWrites(() => socket);
    const sent = Array.from({ length: 20 }, (_, i) => `cmd${i}`);
    let beforeTickEnd = -1;
    for (const [i, cmd] of sent.entries()) {
      tw.hold();
      socket.write(cmd);
      if (i === COMMANDS_PER_WRITE) beforeTickEnd = writes.length;
    }
    // The first eight left while the ninth was being issued, not at the tick's end.
    expect(beforeTickEnd).toBe(1);
    await tick();
    expect(writes.map((w) => w.length)).toEqual([8, 8, 4]);
    expect(writes.flat()).toEqual(sent);
  });

  it('lets a lone command go at the end of its tick, and starts afresh on the next tick', async () => {
    const { socket, writes } = wire();
    const tw = new TickWrites(() => socket, 3);
    tw.hold();
    socket.write('a');
    expect(writes).toEqual([]);
    await tick();
    expect(writes).toEqual([['a']]);
    for (const cmd of ['b', 'c', 'd', 'e']) {
      tw.hold();
      socket.write(cmd);
    }
    await tick();
    expect(writes.slice(1)).toEqual([['b', 'c', 'd'], ['e']]);
  });

  it('holds nothing while there is no writable socket', async () => {
    const tw = new TickWrites(() => undefined);
    expect(() => tw.hold()).not.toThrow();
    const { socket, writes } = wire();
    socket.end();
    const closed = new TickWrites(() => socket);
    closed.hold();
    expect(socket.writableCorked).toBe(0);
    await tick();
    expect(writes).toEqual([]);
  });
});
