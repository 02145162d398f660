import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, it } from 'vitest';
import config from '../vite.config.js';

/*
 * The files that compute share a module graph per worker (vite.config.ts).
 * A file that replaces a module or the clocks would change them for every
 * file after it in that worker, so such a file must run in the project that
 * keeps each file's modules its own.
 */

const root = new URL('..', import.meta.url).pathname;

function testFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) testFiles(p, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, p));
  }
  return out;
}

it('runs every test file that mocks a module, fakes the clocks or stubs a global in a project of its own modules, and none among the browser files', async () => {
  const resolved = typeof config === 'function' ? await config({ mode: 'test', command: 'serve' }) : config;
  const projects = (resolved as { test: { projects: Array<{ test: { name: string; include: string[]; isolate?: boolean } }> } }).test.projects;
  const isolated = projects.find((p) => p.test.name === 'node-isolated')!.test;
  expect(isolated.isolate).not.toBe(false);
  expect(projects.find((p) => p.test.name === 'node')!.test.isolate).toBe(false);
  const replaces = (f: string) => /\bvi\.(mock|doMock|useFakeTimers|stubGlobal|stubEnv)\(/.test(readFileSync(join(root, f), 'utf8'));
  const files = [...testFiles(join(root, 'test')), ...testFiles(join(root, 'docs'))];
  const replacing = files.filter((f) => !f.startsWith('test/browser/') && !f.startsWith('test/real/')).filter(replaces);
  expect(replacing.length).toBeGreaterThan(0);
  expect(replacing.sort()).toEqual([...isolated.include].sort());
  // The browser files share one module graph too, and have no project of their own modules: none may replace one.
  expect(projects.find((p) => p.test.name === 'browser')!.test.isolate).toBe(false);
  expect(files.filter((f) => f.startsWith('test/browser/')).filter(replaces)).toEqual([]);
});
