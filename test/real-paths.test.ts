import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, PHP_DRIVER_PATH, runsFromSource } from '../sim/real/paths.js';

describe('the files the real runner starts', () => {
  it('come from the sources wherever code outside dist/ runs, the client process a runner bundles into node_modules/.cache included', () => {
    const root = '/home/me/locklab';
    expect(runsFromSource(join(root, 'sim/real/paths.ts'), root)).toBe(true);
    // The client a runner from the sources bundles: it must start the PHP driver being edited, not the last build's copy.
    expect(runsFromSource(join(root, 'node_modules/.cache/locklab/real-child.mjs'), root)).toBe(true);
    expect(runsFromSource(join(root, 'dist/lib/chunks/chunk-ABC.js'), root)).toBe(false);
    expect(runsFromSource(join(root, 'dist/lib/real-child.js'), root)).toBe(false);
    // Installed as a package, the package's own dist/ is the built code.
    const installed = '/app/node_modules/locklab';
    expect(runsFromSource(join(installed, 'dist/lib/cli.js'), installed)).toBe(false);
    // A folder merely named like dist is not it.
    expect(runsFromSource(join(root, 'distant/x.js'), root)).toBe(true);
    expect(PHP_DRIVER_PATH).toBe(join(PACKAGE_ROOT, 'sim/real/symfony/driver.php'));
  });
});
