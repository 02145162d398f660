import { build } from 'esbuild';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import vm from 'node:vm';
import { describe, expect, it } from 'vitest';
import { normalizeScenario } from '../sim/scenario/normalize.js';
import { runScenario } from '../sim/run.js';
import { BUILTIN_NAMES, BUILTIN_SCENARIOS } from '../sim/scenarios/index.js';
import { traceHash } from '../sim/trace/io.js';

const root = new URL('..', import.meta.url).pathname;

/** The simulation core: everything under sim/ but the CLI, the real runner, sweeps and the testing API's Vitest entry. */
function coreFiles(dir = join(root, 'sim')): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isDirectory()) return ['cli', 'real', 'sweep'].includes(d.name) && dir.endsWith('sim') ? [] : coreFiles(path);
    return d.name.endsWith('.ts') && relative(root, path) !== 'sim/testing/vitest.ts' ? [path] : [];
  });
}

describe('the simulation core is pure', () => {
  it('imports no Node built-in, directly or by name', () => {
    const offenders = coreFiles().flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const imports = [...text.matchAll(/from\s+'([^']+)'/g)].map((m) => m[1]!);
      return imports
        .filter((i) => i.startsWith('node:') || ['fs', 'path', 'os', 'crypto', 'child_process', 'process'].includes(i))
        .map((i) => `${relative(root, file)}: ${i}`);
    });
    expect(offenders).toEqual([]);
  });

  it('runs in a bare JavaScript realm with no clock, no timers, no Math.random, no DOM and no Node, and gives the same hashes', async () => {
    // Bundle the core as one script, as a browser would load it.
    const bundle = await build({
      stdin: {
        contents: `export { runScenario, normalizeScenario, BUILTIN_SCENARIOS, traceHash } from './sim/index.ts';`,
        resolveDir: root,
        loader: 'ts',
      },
      bundle: true,
      write: false,
      format: 'iife',
      globalName: 'locklab',
      platform: 'neutral',
      mainFields: ['module', 'main'],
      logLevel: 'silent',
    });
    const code = bundle.outputFiles[0]!.text;
    const trap = (name: string) => `Object.defineProperty(globalThis, ${JSON.stringify(name)}, { get() { throw new Error('the core touched ${name}'); } });`;
    // TextEncoder is the one host API the core uses (to hash traces); browsers and Node both have it.
    const realm = vm.createContext({ TextEncoder });
    vm.runInContext(
      [
        'Math.random = () => { throw new Error("the core called Math.random"); };',
        'Date.now = () => { throw new Error("the core called Date.now"); };',
        ...['setTimeout', 'setInterval', 'performance', 'process', 'window', 'document', 'require'].map(trap),
        'globalThis.module = undefined;',
      ].join('\n'),
      realm,
    );
    vm.runInContext(code, realm);
    for (const name of BUILTIN_NAMES) {
      const inRealm = vm.runInContext(
        `locklab.traceHash(locklab.runScenario(locklab.normalizeScenario(locklab.BUILTIN_SCENARIOS[${JSON.stringify(name)}], 'x')))`,
        realm,
      ) as string;
      expect(inRealm, name).toBe(traceHash(runScenario(normalizeScenario(BUILTIN_SCENARIOS[name], 'x'))));
    }
  });
});
