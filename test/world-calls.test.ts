import { describe, expect, it } from 'vitest';
import type { CallResult, Steps } from '../sim/runtime/types.js';
import { DEFER, type Caller, type Endpoint } from '../sim/world/endpoint.js';
import { World } from '../sim/world/world.js';

/** A world with fixed 1 ms latency, a client machine and a server machine whose endpoint answers as `answer` says. */
function world(answer: (w: World, caller: Caller) => unknown, timeoutUs = 10_000): { w: World; seen: string[] } {
  const w = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });
  const app = w.addMachine('app', 0, 0);
  const db = w.addMachine('db', 0, 0);
  const endpoint: Endpoint = { name: 'server', machine: db, isUp: () => true, handle: (_req, caller) => answer(w, caller) };
  w.addEndpoint(endpoint);
  const seen: string[] = [];
  function* script(): Steps<void> {
    for (let i = 0; i < 2; i++) {
      const r = (yield { k: 'call', to: 'server', request: { n: i }, timeoutLocalUs: timeoutUs, msg: w.newMsg() }) as CallResult<unknown>;
      seen.push(`${w.nowUs} ${r.status}${r.status === 'reply' ? ` ${String(r.reply)}` : ''}`);
    }
  }
  w.addProcess('client', app).start(script());
  return { w, seen };
}

describe('a call in flight', () => {
  it('gets its reply a round trip later, and the next call goes out on the same connection', () => {
    const { w, seen } = world(() => 'pong');
    const stop = w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
    expect(seen).toEqual(['2000 reply pong', '4000 reply pong']);
    // Per call: the request's arrival and the reply's; the timeouts were called off.
    expect(stop).toEqual({ reason: 'completed', events: 4, timeUs: 4000 });
  });

  it('settles once: a second reply to one request still travels, and is ignored when it lands', () => {
    const { w, seen } = world((_w, caller) => {
      caller.respond('first');
      caller.respond('second');
      return DEFER;
    });
    const stop = w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
    expect(seen).toEqual(['2000 reply first', '4000 reply first']);
    expect(stop).toEqual({ reason: 'completed', events: 6, timeUs: 4000 });
  });

  it('times out when no reply comes, and a reply after that is ignored', () => {
    const { w, seen } = world((world, caller) => {
      world.kernel.after(20_000, () => caller.respond('late'));
      return DEFER;
    });
    const stop = w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
    expect(seen).toEqual(['10000 timeout', '20000 timeout']);
    // Two arrivals, two timeouts, two late answers sent and their two replies landing.
    expect(stop.events).toBe(8);
  });

  it("times out when the reply lands on the timeout's microsecond, and takes the reply one microsecond sooner", () => {
    const at = (holdUs: number): string[] => {
      const { w, seen } = world((world, caller) => {
        world.kernel.after(holdUs, () => caller.respond('pong'));
        return DEFER;
      });
      w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
      return seen;
    };
    // Sent at 0: the request lands at 1,000, the answer goes at 1,000 + hold and lands 1,000 later; the timeout is at 10,000.
    expect(at(8_000)).toEqual(['10000 timeout', '20000 timeout']);
    expect(at(7_999)).toEqual(['9999 reply pong', '19998 reply pong']);
  });

  it("times out when an answer sent at once lands on the timeout's microsecond", () => {
    const run = (timeoutUs: number): string[] => {
      const { w, seen } = world(() => 'pong', timeoutUs);
      w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
      return seen;
    };
    expect(run(2_000)).toEqual(['2000 timeout', '4000 timeout']);
    expect(run(2_001)).toEqual(['2000 reply pong', '4000 reply pong']);
  });

  it('times out when the reply is lost on its way back, and when the request is', () => {
    const { w, seen } = world((world) => {
      // The request got through; from now on the link is cut both ways.
      world.network.addPartition(1, [['app'], ['db']]);
      return 'pong';
    });
    const stop = w.kernel.run({ maxEvents: 1000, maxTimeUs: 1e9 });
    expect(seen).toEqual(['10000 timeout', '20000 timeout']);
    // The first request's arrival and timeout; the second request was lost when sent, and only its timeout fires.
    expect(stop).toEqual({ reason: 'completed', events: 3, timeUs: 20_000 });
  });
});
