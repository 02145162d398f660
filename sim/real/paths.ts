import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package's root directory, found by walking up from this module: the
 * same whether this code runs from the sources (tsx) or bundled into
 * dist/lib, where it sits elsewhere.
 */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'locklab') return dir;
      } catch {
        // not ours; keep looking
      }
    }
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot find the locklab package root above the real runner');
    dir = up;
  }
}

export const PACKAGE_ROOT = findRoot();

/**
 * Whether code at `moduleFile` runs from the sources rather than the built
 * package: anything outside `ROOT/dist/` does, the TypeScript itself (tsx,
 * Vitest) and the client process a runner from the sources bundles into
 * node_modules/.cache, which must start the PHP driver being edited, not
 * the copy the last `npm run build:lib` left in dist/lib.
 */
export function runsFromSource(moduleFile: string, root: string): boolean {
  return !moduleFile.startsWith(join(root, 'dist') + sep);
}

export const FROM_SOURCE = runsFromSource(fileURLToPath(import.meta.url), PACKAGE_ROOT);

/** Files the real runner starts as they are: beside their sources, or copied into dist/lib/real by `npm run build:lib`. */
export const REAPER_SCRIPT = FROM_SOURCE ? join(PACKAGE_ROOT, 'sim', 'real', 'harness', 'reaper.mjs') : join(PACKAGE_ROOT, 'dist', 'lib', 'real', 'reaper.mjs');
export const PHP_DRIVER_PATH = FROM_SOURCE
  ? join(PACKAGE_ROOT, 'sim', 'real', 'symfony', 'driver.php')
  : join(PACKAGE_ROOT, 'dist', 'lib', 'real', 'driver.php');
export const CHILD_SOURCE = join(PACKAGE_ROOT, 'sim', 'real', 'child.ts');
/** The client process, compiled by `npm run build:lib`. */
export const CHILD_BUILT = join(PACKAGE_ROOT, 'dist', 'lib', 'real-child.js');
