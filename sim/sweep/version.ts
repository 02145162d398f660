import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/*
 * The code version a sweep's results are keyed by: the package version plus
 * a hash of the simulation core's sources (every sim/ file the runs execute,
 * not the command line, the sweep machinery or the real runner). Two machines
 * count the same batch the same way only when this matches, so a worker of
 * another version is refused rather than mixed in.
 */

const SIM_ROOT = fileURLToPath(new URL('..', import.meta.url));
const OUTSIDE_THE_CORE = new Set(['cli', 'sweep', 'real']);

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
  const pkg = JSON.parse(readFileSync(join(SIM_ROOT, '..', 'package.json'), 'utf8')) as { version: string };
  const h = sha256.create();
  for (const file of coreFiles(SIM_ROOT, true)) {
    h.update(new TextEncoder().encode(`${relative(SIM_ROOT, file)}\n`));
    h.update(readFileSync(file));
  }
  cached = `${pkg.version}+${bytesToHex(h.digest()).slice(0, 12)}`;
  return cached;
}
