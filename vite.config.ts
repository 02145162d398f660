import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig } from 'vitest/config';
import { lessonsPlugin } from './web/lessons/plugin.js';

/*
 * The built lab forbids inline and foreign scripts: nothing a user imports
 * (a trace, a scenario, a link) can run script in the page. The dev server
 * goes without, because React's fast refresh injects an inline preamble.
 */
const contentSecurityPolicy: Plugin = {
  name: 'locklab-csp',
  apply: 'build',
  transformIndexHtml: () => [
    {
      tag: 'meta',
      attrs: {
        'http-equiv': 'Content-Security-Policy',
        content:
          "default-src 'self'; script-src 'self'; worker-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'",
      },
      injectTo: 'head-prepend',
    },
  ],
};

/*
 * One config for the lab (Vite serves and builds web/) and for the tests
 * (Vitest runs every test/**.test.ts from the repository root). The app's
 * root is web/, but the tests' include stays relative to the repository.
 */
export default defineConfig({
  root: 'web',
  base: './',
  plugins: [react(), contentSecurityPolicy, lessonsPlugin()],
  server: { host: '127.0.0.1', strictPort: false },
  preview: { host: '127.0.0.1' },
  worker: { format: 'es' },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
  },
  test: {
    root: '.',
    // Examples import the package by name, as a user's tests do; here that is the source.
    alias: [
      { find: /^locklab\/testing$/, replacement: new URL('./sim/testing/vitest.ts', import.meta.url).pathname },
      { find: /^locklab$/, replacement: new URL('./sim/index.ts', import.meta.url).pathname },
    ],
    environment: 'node',
    // Test files make thousands of short runs; V8's pretenuring by allocation site slows such a process 3-6x (docs/testing.md, "Many seeds").
    execArgv: ['--no-allocation-site-pretenuring'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Browser tests poll the page; on a loaded two-core machine a re-run in the worker can take over the default 1 s.
    expect: { poll: { timeout: 5_000 } },
    /*
     * Vitest's default, one worker fewer than the cores, ran every file one
     * after another on two. The files that only compute run first, on every
     * core; then the browser's and then the real servers', one file at a
     * time: Chromium keeps two cores busy (two browser files at once took
     * twice as long each), and a server's timing is what its tests check.
     */
    projects: [
      {
        extends: true,
        test: { name: 'node', include: ['test/**/*.test.ts', 'docs/examples/**/*.test.ts'], exclude: ['test/browser/**', 'test/real/**'], maxWorkers: '100%' },
      },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'real', include: ['test/real/**/*.test.ts'], fileParallelism: false, sequence: { groupOrder: 2 } } },
    ],
  },
});
