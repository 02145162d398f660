import { existsSync } from 'node:fs';
import { describe, it } from 'vitest';
import { CHROMIUM_PATH, startLab as startOwnLab, type Lab } from './lab-server.js';

export * from './lab-server.js';

/**
 * The lab for a test file: in a browser context of its own, on the server
 * and Chromium every browser test file of this worker shares (they run one
 * after another in one module graph), so each file no longer launches
 * Chromium. Its `close` closes the context.
 */
export function startLab(): Promise<Lab> {
  return startOwnLab({ shared: true });
}

/**
 * Declares a browser suite. Without Chromium it is skipped with a message,
 * except under CI, where a missing browser must fail loudly rather than
 * pass by skipping.
 */
export function describeBrowser(name: string, body: () => void): void {
  if (existsSync(CHROMIUM_PATH)) {
    describe(name, body);
    return;
  }
  const why = `Chromium was not found at ${CHROMIUM_PATH} (install Debian's chromium package, or set LOCKLAB_CHROMIUM)`;
  if (process.env.CI) {
    describe(name, () => {
      it('needs Chromium to run the browser tests', () => {
        throw new Error(`${why}; CI requires the browser tests to run.`);
      });
    });
    return;
  }
  console.warn(`[browser tests] skipping "${name}": ${why}.`);
  describe.skip(name, body);
}
