import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LONGEST_FIRST, startRank } from './sequencer.js';

const ROOT = join(import.meta.dirname, '..');

describe('the order test files start in', () => {
  it('names only files that exist, each once', () => {
    for (const f of LONGEST_FIRST) expect(existsSync(join(ROOT, f)), f).toBe(true);
    expect(new Set(LONGEST_FIRST).size).toBe(LONGEST_FIRST.length);
  });

  it('ranks the long files by their place in the list and every other file after them', () => {
    expect(startRank(ROOT, join(ROOT, 'test/readme.test.ts'))).toBe(0);
    expect(startRank(ROOT, join(ROOT, 'test/real/agreement.test.ts'))).toBe(LONGEST_FIRST.indexOf('test/real/agreement.test.ts'));
    expect(startRank(ROOT, join(ROOT, 'test/cli.test.ts'))).toBe(LONGEST_FIRST.length);
  });
});
