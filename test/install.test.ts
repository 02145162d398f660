import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

/*
 * A fresh clone's `npm ci` ends without npm's list of dependencies whose
 * install scripts nobody reviewed: package.json's allowScripts names each
 * one (npm 12 runs no other). A dependency added with a script of its own
 * fails here until it is reviewed (`npm install-scripts approve NAME`).
 */
describe("the repository's install", () => {
  it('has every dependency that runs an install script approved or denied in package.json', () => {
    const root = new URL('..', import.meta.url).pathname;
    const r = spawnSync('npm', ['approve-scripts', '--allow-scripts-pending'], { cwd: root, encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe('No packages with unreviewed install scripts.');
  });
});
