import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The code version a sweep's results are keyed by: the package version plus
 * a hash of the simulation core's sources (every sim/ file the runs execute,
 * not the command line, the sweep machinery, the real runner or the testing
 * API), whether the command runs from the sources or compiled, so both agree
 * in one checkout. Two machines
 * count the same batch the same way only when this matches, so a worker of
 * another version is refused rather than mixed in.
 */

const OUTSIDE_THE_CORE = new Set(['cli', 'sweep', 'real', 'testing']);

/**
 * The core's sources: sim/ beside this file when run from the sources, or
 * the checkout's sim/ when run compiled from dist/lib (or a chunk below it).
 */
function simRoot(): string | undefined {
  const here = import.meta.url;
  const candidates = here.endsWith('.ts') ? ['..'] : ['../../sim/', '../../../sim/'];
  for (const c of candidates) {
    const dir = fileURLToPath(new URL(c, here));
    if (existsSync(join(dir, 'run.ts'))) return dir;
  }
  return undefined;
}

/** The package.json of the locklab package, found upwards from here. */
function packageVersion(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === 'locklab' && typeof pkg.version === 'string') return pkg.version;
    }
    const up = dirname(dir);
    if (up === dir) return '0.0.0';
    dir = up;
  }
}

/** Without sources (an installed package), the compiled command itself: every .js file of dist/lib. */
function compiledFiles(): { root: string; files: string[] } {
  let dir = dirname(fileURLToPath(import.meta.url));
  if (!existsSync(join(dir, 'cli.js')) && existsSync(join(dirname(dir), 'cli.js'))) dir = dirname(dir);
  const walk = (d: string): string[] =>
    readdirSync(d, { withFileTypes: true })
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .flatMap((e) => (e.isDirectory() ? walk(join(d, e.name)) : e.name.endsWith('.js') ? [join(d, e.name)] : []));
  return { root: dir, files: walk(dir) };
}

function coreFiles(dir: string, top: boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.isDirectory()) {
      if (!(top && OUTSIDE_THE_CORE.has(entry.name))) out.push(...coreFiles(join(dir, entry.name), false));
    } else if (/\.(ts|json)$/.test(entry.name)) out.push(join(dir, entry.name));
  }
  return out;
}

let cached: string | undefined;

/** `0.1.0+1a2b3c4d5e6f`: the package version and the first 12 hex digits of the core's hash. LOCKLAB_CODE_VERSION overrides it (to test a mixed fleet). */
export function codeVersion(): string {
  const forced = process.env.LOCKLAB_CODE_VERSION;
  if (forced !== undefined && forced !== '') return forced;
  if (cached !== undefined) return cached;
  const sim = simRoot();
  const { root, files } = sim === undefined ? compiledFiles() : { root: sim, files: coreFiles(sim, true) };
  const h = sha256.create();
  for (const file of files) {
    h.update(new TextEncoder().encode(`${relative(root, file)}\n`));
    h.update(readFileSync(file));
  }
  cached = `${packageVersion()}+${bytesToHex(h.digest()).slice(0, 12)}`;
  return cached;
}
