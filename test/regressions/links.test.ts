import { deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MAX_SEED } from '../../sim/scenario/seed.js';
import { parseLink } from '../../web/links/permalink.js';
import { cli } from '../support/cli.js';

/*
 * Regression: links accepted seeds the CLI refused (up to 15 digits), so a
 * link could name a run `locklab run --seed` could not reproduce.
 */

const issuesOf = async (hash: string): Promise<string[]> => {
  const r = await parseLink(hash);
  return r.ok ? [] : r.issues.map((i) => `${i.path}: ${i.message}`);
};

describe('links and the CLI agree', () => {
  it('a link refuses a seed above 2^32 − 1 with the words the CLI uses', async () => {
    const cliErr = (await cli('run', 'pause-past-expiry', '--seed', '4294967296')).err;
    expect(cliErr).toContain('expected a whole number from 0 to 4294967295');
    expect(await issuesOf('#/lab?s=pause-past-expiry&seed=4294967296')).toEqual(['seed: expected a whole number from 0 to 4294967295, got "4294967296"']);
    expect(await issuesOf('#/compare?s=pause-past-expiry&b=1&bseed=999999999999999')).toEqual([
      'bseed: expected a whole number from 0 to 4294967295, got "999999999999999"',
    ]);
  });

  it('a link takes the largest seed the CLI takes', async () => {
    const r = await parseLink(`#/lab?s=pause-past-expiry&seed=${MAX_SEED}`);
    expect(r.ok && r.state.seed).toBe(MAX_SEED);
    expect((await cli('run', 'pause-past-expiry', '--seed', String(MAX_SEED))).code).toBe(0);
  });

  it('a link that inflates past the scenario size limit is refused without inflating it all', async () => {
    const bomb = deflateRawSync(Buffer.alloc(5_000_000, 0x20)).toString('base64url');
    expect(bomb.length).toBeLessThan(8000);
    expect(await issuesOf(`#/lab?sc=${bomb}`)).toEqual(['sc: inflates to more than 1048576 bytes; the limit is 1,048,576 bytes (maxScenarioBytes)']);
  });

  it('a link with more overrides than the CLI allows is refused naming the parameter', async () => {
    const sets = Array.from({ length: 101 }, () => 'set=resource.fencing%3Dtrue').join('&');
    expect(await issuesOf(`#/lab?s=pause-past-expiry&${sets}`)).toEqual(['set: is given 101 times; the limit is 100 overrides (maxOverrides)']);
  });
});
