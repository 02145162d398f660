// `npm run build:lib` (and `prepare`, so `npm ci` runs it): writes the
// precompiled validators, compiles the
// library and the `locklab` command to JavaScript in dist/lib, and the
// library's declarations to dist/types. Dependencies stay imports, resolved
// from the installing project, except the two in BUILT_IN; JSON (built-in
// scenarios, schemas) is inlined.
// Everything is built beside dist/ first and moved in at the end, so a
// failed build leaves the previous one whole and a running command never
// sees half of one.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';

const root = new URL('..', import.meta.url).pathname;
const staging = `dist/.build-${process.pid}`;
/**
 * Dependencies built into the package rather than imported: small, pure
 * JavaScript, and loaded by every command, where Node's own loading is most
 * of their cost (jsonc-parser's entry for Node is a UMD file read through
 * the CommonJS loader; @noble/hashes is a dozen ES modules resolved one by
 * one). See docs/decisions/0016-two-dependencies-built-in.md.
 */
const BUILT_IN = ['jsonc-parser', '@noble/hashes'];
const pkg = JSON.parse(readFileSync(`${root}package.json`, 'utf8'));
const packages = Object.keys({ ...pkg.dependencies, ...pkg.devDependencies, ...pkg.peerDependencies, ...pkg.optionalDependencies });
const common = {
  absWorkingDir: root,
  bundle: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  // Every other dependency stays an import, resolved in the installing project (and their subpaths with them).
  external: packages.filter((d) => !BUILT_IN.includes(d)).flatMap((d) => [d, `${d}/*`]),
  // A built-in package's ES module build, where it has one (jsonc-parser's `module`), not its CommonJS `main`.
  mainFields: ['module', 'main'],
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

  // The built-in dependencies' licences go with their code.
  mkdirSync(`${root}${staging}/lib/licenses`, { recursive: true });
  for (const dep of BUILT_IN) {
    const dir = `${root}node_modules/${dep}`;
    const file = ['LICENSE', 'LICENSE.md'].find((f) => existsSync(`${dir}/${f}`));
    if (file === undefined) throw new Error(`build-lib: ${dep} has no LICENSE file to ship with its code`);
    copyFileSync(`${dir}/${file}`, `${root}${staging}/lib/licenses/${dep.replace('/', '__')}.txt`);
  }

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
