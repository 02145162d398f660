import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { beliefWords } from '../../web/model/belief-words.js';
import { buildModel } from '../../web/model/build.js';
import { clientViewAt } from '../../web/model/state-at.js';

/* What the lab's details say a client believes: the time left is the one at the instant shown, never the one its last belief recorded. */

describe('beliefWords', () => {
  it('says a lease has run out, with no time left, when the belief recorded earlier still had 9 s', () => {
    const words = beliefWords({ belief: { holds: true, owner: 'A:1', fence: 33, ttlLeftUs: 9_000_000 }, ttlLeftUs: -1346, paused: true });
    expect(words).toBe('holds A:1 #33 while paused, though by its own clock its lease ran out 1.346 ms ago');
    expect(words).not.toContain('9 s');
  });

  it('gives the time left now by the client’s clock while the lease runs, and none for a lock that does not expire', () => {
    expect(beliefWords({ belief: { holds: true, owner: 'B:1', fence: 34, ttlLeftUs: 10_000_000 }, ttlLeftUs: 2_500_000, paused: false })).toBe(
      'holds B:1 #34, 2.5 s left by its own clock',
    );
    expect(beliefWords({ belief: { holds: true, owner: 'A:1' }, ttlLeftUs: null, paused: false })).toBe('holds A:1');
    expect(beliefWords({ belief: { holds: false }, ttlLeftUs: null, paused: true })).toBe('that it holds nothing, while paused');
    expect(beliefWords({ belief: null, ttlLeftUs: null, paused: false })).toBe('nothing yet');
  });

  it('pause-past-expiry: as A’s lease expires in the store, paused A believes it holds token 33 and its own clock says the lease ran out', () => {
    const doc = runScenario(normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry'));
    const model = buildModel(doc);
    // The first finding, where `n` takes the lab: the store lets A's lease expire while A sleeps.
    const expiry = doc.events.find((e) => e.kind === 'lock.expired' && e.owner === 'A:1')!;
    const lane = model.clients.find((c) => c.name === 'A')!;
    const view = clientViewAt(doc, model, lane, expiry.seq, expiry.timeUs);
    // The belief it recorded last still had time on it: the words must not repeat that.
    expect(view.belief?.ttlLeftUs).toBeGreaterThan(0);
    expect(view.ttlLeftUs).toBeLessThan(0);
    const words = beliefWords(view);
    expect(words).toMatch(/^holds A:1 #33 while paused, though by its own clock its lease ran out [\d.]+ m?s ago$/);
    expect(words).not.toContain(' left');
  });
});
