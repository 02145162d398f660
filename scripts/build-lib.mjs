// `npm run build:lib` (and `prepare`, so `npm ci` runs it): compiles the
// library and the `locklab` command to JavaScript in dist/lib, and the
// library's declarations to dist/types. Dependencies stay imports, resolved
// from the installing project; JSON (built-in scenarios, schemas) is inlined.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
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

rmSync(`${root}dist/lib`, { recursive: true, force: true });
rmSync(`${root}dist/types`, { recursive: true, force: true });

// The library's entry points share chunks, so `locklab` and `locklab/testing` see one copy of each class.
await build({
  ...common,
  entryPoints: { index: 'sim/index.ts', testing: 'sim/testing/vitest.ts' },
  outdir: 'dist/lib',
  splitting: true,
  chunkNames: 'chunks/[name]-[hash]',
});
// The command is one file: one module to load at start.
await build({ ...common, entryPoints: { cli: 'sim/cli/start.ts' }, outdir: 'dist/lib' });

const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', 'tsconfig.lib.json'], { cwd: root, stdio: 'inherit' });
