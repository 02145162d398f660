import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

/** The modules `file` imports (type imports too), as repository paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/(?:import|export)[^'";]*?from\s+'(\.[^']+)'/g)].map((m) => resolve(dirname(file), m[1]!.replace(/\.js$/, '.ts')));
}

/** Every module reachable from `entries` by imports, with the chain that reached it. */
function reachable(entries: readonly string[]): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue: Array<[string, string[]]> = entries.map((e) => [e, [relative(root, e)]]);
  while (queue.length > 0) {
    const [file, chain] = queue.shift()!;
    if (seen.has(file)) continue;
    seen.set(file, chain);
    for (const next of importsOf(file)) queue.push([next, [...chain, relative(root, next)]]);
  }
  return seen;
}

const clientCode = [
  ...readdirSync(join(root, 'sim/clients'))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => join(root, 'sim/clients', f)),
  ...readdirSync(join(root, 'sim/stores'))
    .filter((f) => f.endsWith('-driver.ts'))
    .map((f) => join(root, 'sim/stores', f)),
];

describe('the runtime seam', () => {
  it('client code (the step runner, the Lock object and every store driver) reaches neither the simulated world nor the kernel', () => {
    expect(clientCode.length).toBeGreaterThan(8);
    const offenders = [...reachable(clientCode)]
      .filter(([file]) => /sim\/(world|kernel\/kernel)/.test(relative(root, file)))
      .map(([, chain]) => chain.join(' → '));
    expect(offenders).toEqual([]);
  });

  it('every store kind builds its drivers without a world', async () => {
    const { STORE_KINDS } = await import('../sim/stores/registry.js');
    const { BUILTIN_SCENARIOS } = await import('../sim/scenarios/index.js');
    const { normalizeScenario } = await import('../sim/scenario/normalize.js');
    const kinds = new Set<string>();
    for (const [name, doc] of Object.entries(BUILTIN_SCENARIOS)) {
      const s = normalizeScenario(doc, name);
      const kind = STORE_KINDS.find((k) => k.kind === s.store.kind)!;
      for (const c of s.clients) expect(typeof kind.driver(s.store, c, s).acquire).toBe('function');
      kinds.add(kind.kind);
    }
    expect(kinds.size).toBeGreaterThanOrEqual(10);
  });
});
