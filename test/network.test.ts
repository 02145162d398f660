import { describe, expect, it } from 'vitest';
import { RngStreams } from '../sim/kernel/rng.js';
import { drawLatency, LOOPBACK_US, Network } from '../sim/world/network.js';

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

describe('latency distributions', () => {
  const draw = (distribution: 'uniform' | 'normal' | 'long-tail'): number[] => {
    const rng = new RngStreams(4).stream('lat');
    return Array.from({ length: 20_000 }, () => drawLatency(rng, { latencyMinUs: 1000, latencyMaxUs: 11_000, loss: 0, distribution }));
  };
  const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
  const share = (xs: number[], pred: (x: number) => boolean): number => xs.filter(pred).length / xs.length;

  it('every distribution stays within the bounds, in whole microseconds', () => {
    for (const d of ['uniform', 'normal', 'long-tail'] as const) {
      for (const x of draw(d)) {
        expect(Number.isInteger(x)).toBe(true);
        expect(x).toBeGreaterThanOrEqual(1000);
        expect(x).toBeLessThanOrEqual(11_000);
      }
    }
  });

  it('uniform spreads evenly, normal gathers in the middle, long-tail crowds the minimum with a slow tail', () => {
    const u = draw('uniform');
    expect(mean(u)).toBeGreaterThan(5900);
    expect(mean(u)).toBeLessThan(6100);
    expect(share(u, (x) => x < 3000)).toBeGreaterThan(0.18);

    const n = draw('normal');
    expect(mean(n)).toBeGreaterThan(5950);
    expect(mean(n)).toBeLessThan(6050);
    // Within one σ (a sixth of the range) of the middle: about 68 %.
    expect(share(n, (x) => Math.abs(x - 6000) <= 10_000 / 6)).toBeGreaterThan(0.64);
    expect(share(n, (x) => Math.abs(x - 6000) <= 10_000 / 6)).toBeLessThan(0.72);

    const t = draw('long-tail');
    expect(mean(t)).toBeGreaterThan(2900); // min + range / 5
    expect(mean(t)).toBeLessThan(3100);
    expect(share(t, (x) => x < 2000)).toBeGreaterThan(0.5);
    expect(share(t, (x) => x > 8000)).toBeGreaterThan(0.02);
  });

  it('a scenario can choose its distribution, and the same seed draws the same latencies', async () => {
    const { normalizeScenario } = await import('../sim/scenario/normalize.js');
    const { runScenario } = await import('../sim/run.js');
    const { traceHash } = await import('../sim/trace/io.js');
    const doc = (distribution: string) =>
      runScenario(
        normalizeScenario(
          {
            name: 'lat',
            machines: [{ name: 'a' }, { name: 'db' }],
            network: { latencyMinMs: 1, latencyMaxMs: 50, distribution },
            store: { kind: 'redis', machine: 'db' },
            clients: [{ name: 'A', machine: 'a', iterations: 20, workMs: 1 }],
          },
          'lat',
        ),
      );
    expect(traceHash(doc('long-tail'))).toBe(traceHash(doc('long-tail')));
    expect(traceHash(doc('long-tail'))).not.toBe(traceHash(doc('normal')));
    expect(doc('normal').scenario.network.distribution).toBe('normal');
  });
});
