import react from '@vitejs/plugin-react';
import type { Plugin } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
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
 * The entry (web/main.tsx) starts the simulation's worker and then imports
 * the page's code, web/app.tsx, which is a chunk of its own. index.html
 * preloads that chunk, the chunks it imports and their styles, so the
 * browser fetches and parses them from the start, as it would a single
 * entry, while the worker starts at once.
 */
const preloadApp: Plugin = {
  name: 'locklab-preload-app',
  apply: 'build',
  transformIndexHtml: {
    order: 'post',
    handler(_html, ctx) {
      const chunks = Object.values(ctx.bundle ?? {}).filter((c) => c.type === 'chunk');
      const app = chunks.find((c) => c.facadeModuleId?.endsWith('/web/app.tsx'));
      if (app === undefined) throw new Error('locklab-preload-app: no chunk for web/app.tsx in the build');
      const files = new Set<string>();
      const visit = (file: string) => {
        const chunk = chunks.find((c) => c.fileName === file);
        if (chunk === undefined || chunk.isEntry || files.has(file)) return;
        files.add(file);
        chunk.imports.forEach(visit);
      };
      visit(app.fileName);
      // Its styles too: the import would otherwise add them only once the entry runs.
      const styles = [...files].flatMap((file) => [...(chunks.find((c) => c.fileName === file)?.viteMetadata?.importedCss ?? [])]);
      return [
        ...[...files].map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `./${file}` }, injectTo: 'head' as const })),
        ...styles.map((file) => ({ tag: 'link', attrs: { rel: 'stylesheet', crossorigin: true, href: `./${file}` }, injectTo: 'head' as const })),
      ];
    },
  },
};

/*
 * jsonc-parser declares no side effects, so the bundle kept what its modules
 * do as they load, though the lab uses only its scanner and parser: the
 * formatter's tables of indented line breaks, about 15 ms of every page's
 * (and worker's) start on this machine. Its modules have none.
 */
const rolldownOptions = {
  treeshake: { moduleSideEffects: (id: string) => (/[\\/]node_modules[\\/]jsonc-parser[\\/]/.test(id) ? false : undefined) },
};

/*
 * One config for the lab (Vite serves and builds web/) and for the tests
 * (Vitest runs every test/**.test.ts from the repository root). The app's
 * root is web/, but the tests' include stays relative to the repository.
 */
/** Test files that replace a module (vi.mock), the clocks or a global, which must not leak into files sharing their worker. */
const OWN_MODULES = ['test/web/kept-draft.test.ts', 'test/web/load-order.test.ts', 'test/web/redraw.test.ts', 'test/web/remembered.test.ts'];

export default defineConfig(async ({ mode }): Promise<ViteUserConfig> => ({
  root: 'web',
  base: './',
  plugins: [react(), contentSecurityPolicy, preloadApp, lessonsPlugin()],
  server: {
    host: '127.0.0.1',
    strictPort: false,
    /*
     * The dev server compiles the lab's modules as it starts, not when the
     * first visit asks for them: a newcomer who opens the printed URL a few
     * seconds after `npm start` sees the lessons in about 2.5 s, not 4.7.
     * Not in Vitest's own server (mode "test"): it serves the repository's
     * root, where these paths name nothing, and no test needs the lab
     * compiled there (the browser tests start servers of their own).
     */
    warmup: mode === 'test' ? {} : { clientFiles: ['./main.tsx', './app.tsx', './views/*.tsx', './lessons/LessonView.tsx', './**/*.worker.ts'] },
  },
  /*
   * The dev server (npm start) bundles the npm packages the lab imports
   * when it first serves it, finding them from index.html. The workers'
   * imports are not reached from there: a package only a worker loads
   * (ajv, once a trace is read) was found on first use, bundled then, and
   * the page reloaded, losing what the learner had just clicked.
   */
  optimizeDeps: { entries: ['index.html', '**/*.worker.ts'] },
  preview: { host: '127.0.0.1' },
  worker: { format: 'es', rolldownOptions },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    rolldownOptions,
  },
  test: {
    root: '.',
    // Long files start first (test/sequencer.ts); loaded only when testing, so `npm start` never loads Vitest.
    sequence: mode === 'test' ? { sequencer: (await import('./test/sequencer.js')).LongestFirst } : {},
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
     * core; then the browser's, one file at a time (Chromium keeps two cores
     * busy: two browser files at once took twice as long each); then the
     * real servers', two files at a time, on their own so that a server's
     * timing, which their tests check, competes with nothing else: the
     * agreement tests spend about 150 s mostly waiting on real time, and the
     * other files run beside them.
     * The files that compute share one module graph per worker (isolate
     * off): each file loading the simulator afresh cost a fifth of their CPU
     * time. The two that replace a module or the clocks keep their own. The
     * browser files share theirs too (none replaces a module), which saves
     * each of them loading the simulator and the harness again, 2-3 s a
     * file.
     */
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          include: ['test/**/*.test.ts', 'docs/examples/**/*.test.ts'],
          exclude: ['test/browser/**', 'test/real/**', ...OWN_MODULES],
          maxWorkers: '100%',
          isolate: false,
        },
      },
      { extends: true, test: { name: 'node-isolated', include: OWN_MODULES, maxWorkers: '100%' } },
      { extends: true, test: { name: 'browser', include: ['test/browser/**/*.test.ts'], fileParallelism: false, isolate: false, sequence: { groupOrder: 1 } } },
      { extends: true, test: { name: 'real', include: ['test/real/**/*.test.ts'], maxWorkers: 2, sequence: { groupOrder: 2 } } },
    ],
  },
}));
