import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { CHILD_BUILT, CHILD_SOURCE, FROM_SOURCE, PACKAGE_ROOT } from './paths.js';

/** How to start a client process: a script, and the Node flags it needs. */
export interface ChildEntry {
  readonly script: string;
  readonly execArgv: readonly string[];
}

let built: Promise<ChildEntry> | undefined;

/**
 * The client process's code, bundled once per runner into one JavaScript
 * file (the packages it uses stay in node_modules), so that starting a
 * client costs a Node start and not a TypeScript compile — a run starts
 * several, and their start must not steal the CPU from runs under way.
 * Without esbuild (a development dependency) it falls back to tsx. The built
 * command (dist/lib) uses the client compiled beside it.
 */
export function childEntry(): Promise<ChildEntry> {
  built ??= (async () => {
    if (!FROM_SOURCE && existsSync(CHILD_BUILT)) return { script: CHILD_BUILT, execArgv: [] };
    const source = CHILD_SOURCE;
    try {
      const { build } = await import('esbuild');
      const dir = join(PACKAGE_ROOT, 'node_modules', '.cache', 'locklab');
      mkdirSync(dir, { recursive: true });
      const out = join(dir, 'real-child.mjs');
      const tmp = `${out}.${process.pid}.tmp.mjs`;
      await build({
        entryPoints: [source],
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        outfile: tmp,
        logLevel: 'silent',
      });
      // Renamed into place whole: runners in other processes may be reading the last one.
      renameSync(tmp, out);
      return { script: out, execArgv: [] };
    } catch {
      return { script: source, execArgv: ['--import', 'tsx'] };
    }
  })();
  return built;
}
