import { describe, expect, it } from 'vitest';
import { RngStreams } from '../sim/kernel/rng.js';
import { LOOPBACK_US, Network } from '../sim/world/network.js';

const config = { latencyMinUs: 500, latencyMaxUs: 2000, loss: 0 };

describe('network', () => {
  it('delivers between machines with a latency inside the configured range', () => {
    const n = new Network(config, new RngStreams(1));
    for (let i = 0; i < 200; i++) {
      const d = n.send('a', 'b');
      expect(d.delivered).toBe(true);
      if (d.delivered) {
        expect(d.delayUs).toBeGreaterThanOrEqual(500);
        expect(d.delayUs).toBeLessThanOrEqual(2000);
      }
    }
  });

  it('uses loopback latency within one machine', () => {
    expect(new Network(config, new RngStreams(1)).send('a', 'a')).toEqual({ delivered: true, delayUs: LOOPBACK_US });
  });

  it('cuts machines in different partition groups apart, and only them', () => {
    const n = new Network(config, new RngStreams(1));
    n.addPartition(0, [['app1'], ['app2', 'db']]);
    expect(n.connected('app1', 'db')).toBe(false);
    expect(n.send('db', 'app1')).toEqual({ delivered: false, reason: 'partition' });
    expect(n.connected('app2', 'db')).toBe(true);
    expect(n.connected('app1', 'monitor')).toBe(true);
    n.removePartition(0);
    expect(n.connected('app1', 'db')).toBe(true);
  });

  it('adds a latency spike to the traffic of the named machines while it lasts', () => {
    const n = new Network({ latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 }, new RngStreams(1));
    n.addSpike(3, 50_000, ['db']);
    expect(n.send('app1', 'db')).toEqual({ delivered: true, delayUs: 51_000 });
    expect(n.send('app1', 'app2')).toEqual({ delivered: true, delayUs: 1000 });
    n.removeSpike(3);
    expect(n.send('app1', 'db')).toEqual({ delivered: true, delayUs: 1000 });
  });

  it('drops about the configured share of messages', () => {
    const n = new Network({ ...config, loss: 0.25 }, new RngStreams(5));
    let lost = 0;
    for (let i = 0; i < 4000; i++) if (!n.send('a', 'b').delivered) lost++;
    expect(lost).toBeGreaterThan(850);
    expect(lost).toBeLessThan(1150);
  });

  it("draws each sender from its own stream: traffic from one machine leaves another machine's draws unchanged", () => {
    const quiet = new Network(config, new RngStreams(8));
    const busy = new Network(config, new RngStreams(8));
    for (let i = 0; i < 50; i++) busy.send('x', 'y');
    expect(busy.send('a', 'b')).toEqual(quiet.send('a', 'b'));
  });
});
