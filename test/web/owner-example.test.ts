import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS, normalizeScenario, runScenario } from '../../sim/index.js';
import { buildModel } from '../../web/model/build.js';
import { ownerExample } from '../../web/timeline/owner-example.js';

/* The legend explains a belief bar's label with the first acquisition of the run on screen, not a fixed "A:1 #33". */

const model = (name: string) => buildModel(runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], name)));

describe('ownerExample', () => {
  it('pause-past-expiry: A’s first acquisition, with its fencing token 33', () => {
    expect(ownerExample([model('pause-past-expiry')])).toEqual({ label: 'A:1 #33', words: 'A’s 1st acquisition, fencing token 33' });
  });

  it('exists-then-set-race: B acquires first, with token 1, so the example is B’s and says #1', () => {
    expect(ownerExample([model('exists-then-set-race')])).toEqual({ label: 'B:1 #1', words: 'B’s 1st acquisition, fencing token 1' });
  });

  it('redlock-clock-jump: names the client (client1), not a Redis node, and no token, since Redlock hands out none', () => {
    expect(ownerExample([model('redlock-clock-jump')])).toEqual({ label: 'client1:1', words: 'client1’s 1st acquisition' });
  });

  it('takes the first run that shows an acquisition, and gives none when no run does', () => {
    const empty = { ...model('pause-past-expiry'), clients: [] };
    expect(ownerExample([empty, model('flock-across-servers')])).toEqual({ label: 'A:1', words: 'A’s 1st acquisition' });
    expect(ownerExample([empty])).toBeNull();
    expect(ownerExample([])).toBeNull();
  });
});
