// `npm run build:lib` (and `prepare`, so `npm ci` runs it): writes the
// precompiled validators, compiles the
// library and the `locklab` command to JavaScript in dist/lib, and the
// library's declarations to dist/types. Dependencies stay imports, resolved
// from the installing project; JSON (built-in scenarios, schemas) is inlined.
// Everything is built beside dist/ first and moved in at the end, so a
// failed build leaves the previous one whole and a running command never
// sees half of one.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const staging = `dist/.build-${process.pid}`;
const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  legalComments: 'none',
  logLevel: 'warning',
};

try {
  // The precompiled validators first (sim/scenario/validators.generated.js): the build bundles them.
  execFileSync(process.execPath, ['--import', 'tsx', 'sim/cli/write-validators.ts'], { cwd: root, stdio: 'inherit' });

  // The entry points share chunks: `locklab` and `locklab/testing` see one copy of each class, and the command adds only itself.
  await build({
    ...common,
    // sweep-worker is what the sweep's worker threads load (sim/sweep/pool.ts finds it beside cli.js); real-child is one real-run client process.
    entryPoints: {
      // The library with Node's own sha256 installed (sim/cli/package-index.ts); its declarations are sim/index.ts's.
      index: 'sim/cli/package-index.ts',
      testing: 'sim/testing/vitest.ts',
      cli: 'sim/cli/start.ts',
      'sweep-worker': 'sim/sweep/batch-task.ts',
      'real-child': 'sim/real/child.ts',
    },
    outdir: `${staging}/lib`,
    splitting: true,
    chunkNames: 'chunks/[name]-[hash]',
  });

  // What the real runner starts as it is: the reaper of servers left behind, and the Symfony driver in PHP.
  mkdirSync(`${root}${staging}/lib/real`, { recursive: true });
  copyFileSync(`${root}sim/real/harness/reaper.mjs`, `${root}${staging}/lib/real/reaper.mjs`);
  copyFileSync(`${root}sim/real/symfony/driver.php`, `${root}${staging}/lib/real/driver.php`);

  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.lib.json', '--outDir', `${staging}/types`], { cwd: root, stdio: 'inherit' });

  mkdirSync(`${root}dist`, { recursive: true });
  for (const part of ['lib', 'types']) {
    rmSync(`${root}dist/${part}`, { recursive: true, force: true });
    renameSync(`${root}${staging}/${part}`, `${root}dist/${part}`);
  }
} finally {
  rmSync(`${root}${staging}`, { recursive: true, force: true });
}
