import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { nodeSha256 } from '../sim/cli/node-hash.js';
import { runJob } from '../sim/run.js';
import { canonicalHash, portableSha256, runHash, useSha256 } from '../sim/trace/hash.js';
import { builtinRuns } from './support/builtin-variants.js';
import { normalized, randomScenario } from './support/random-scenario.js';

/* Run hashes are pinned: Node's sha256 and the portable one must give the same bytes, or a pin would depend on where it ran. */

describe("Node's sha256 and the portable one", () => {
  const both = <T>(f: () => T): [T, T] => {
    try {
      useSha256(portableSha256);
      const portable = f();
      useSha256(nodeSha256);
      return [portable, f()];
    } finally {
      useSha256(portableSha256);
    }
  };

  it('give every built-in run the same run hash, streamed and from the kept trace', () => {
    for (const { label, scenario } of builtinRuns()) {
      const [portable, node] = both(() => {
        const r = runJob(scenario, scenario.seed, { trace: true });
        return [r.runHash, runHash({ schema: 'locklab.trace/1', source: 'sim', scenario, seed: scenario.seed, events: [...r.events!] })];
      });
      expect(node, label).toEqual(portable);
      expect(portable[0], label).toBe(portable[1]);
    }
  });

  it('give random runs, and content with characters outside ASCII, the same hashes', () => {
    fc.assert(
      fc.property(randomScenario, fc.string({ unit: 'grapheme', maxLength: 40 }), (doc, text) => {
        const scenario = normalized(doc);
        const [portable, node] = both(() => [runJob(scenario, 3).runHash, canonicalHash({ text, scenario, n: [1, 2.5, -0] })]);
        expect(node).toEqual(portable);
      }),
      { numRuns: 100, seed: 31 },
    );
  });

  it('are not the same function: the check above compares two implementations', () => {
    const a = portableSha256();
    const b = nodeSha256();
    a.update('x');
    b.update('x');
    const digest = a.digestHex();
    expect(b.digestHex()).toBe(digest);
    expect(digest).toBe('2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881');
    expect(String(nodeSha256)).not.toBe(String(portableSha256));
  });
});
