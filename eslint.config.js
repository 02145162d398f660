import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/*
 * The simulation core must be deterministic and isomorphic: no real clock, no
 * unseeded randomness, no timers and no Node built-ins. The real runner, the
 * CLI, sweeps, the Vitest entry of the testing API (which reads scenario
 * files) and the tests live outside that rule.
 */
const NODE_BUILTINS = [
  'fs',
  'path',
  'os',
  'crypto',
  'child_process',
  'net',
  'http',
  'https',
  'util',
  'events',
  'stream',
  'timers',
  'perf_hooks',
  'worker_threads',
  'process',
  'url',
  'readline',
  'tty',
  'zlib',
];

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'test-results/**',
      'playwright-report/**',
      'bench/results/**',
      // The validators `npm run validators` writes from the schemas (do not edit; test/validators.test.ts checks they are current).
      // They turn off every rule, but ESLint still parses and scopes them, and the trace's, 1.8 MB of generated code, took it over five minutes.
      'sim/*/validators.generated.js',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    files: ['sim/**/*.ts'],
    ignores: ['sim/real/**', 'sim/cli/**', 'sim/sweep/**', 'sim/testing/vitest.ts'],
    languageOptions: { globals: {} },
    rules: {
      'no-restricted-globals': [
        'error',
        // The global object itself: `globalThis.Date` or `self['performance']` would walk around every name below.
        ...['globalThis', 'window', 'self', 'global', 'frames', 'parent', 'top'].map((name) => ({
          name,
          message: 'The simulation core reaches no host object through the global object.',
        })),
        // Host I/O and storage: a run depends on its scenario and seed alone.
        ...[
          'fetch',
          'XMLHttpRequest',
          'WebSocket',
          'EventSource',
          'localStorage',
          'sessionStorage',
          'indexedDB',
          'caches',
          'navigator',
          'location',
          'document',
          'Worker',
          'SharedWorker',
          'MessageChannel',
          'BroadcastChannel',
          'postMessage',
          'Buffer',
          '__dirname',
          '__filename',
        ].map((name) => ({
          name,
          message: 'The simulation core does no I/O: a run depends on its scenario and seed alone.',
        })),
        // Garbage-collector timing is not deterministic.
        ...['WeakRef', 'FinalizationRegistry'].map((name) => ({
          name,
          message: 'Garbage collection timing differs between runs and engines.',
        })),
        ...[
          'Date',
          'Temporal',
          'performance',
          'setTimeout',
          'setInterval',
          'setImmediate',
          'clearTimeout',
          'clearInterval',
          'queueMicrotask',
          'requestAnimationFrame',
          'cancelAnimationFrame',
          'requestIdleCallback',
          'crypto',
          'process',
          'require',
        ].map((name) => ({
          name,
          message: 'The simulation core uses virtual time and seeded streams only (see sim/kernel).',
        })),
      ],
      // Code built from strings escapes every rule here.
      'no-eval': 'error',
      'no-implied-eval': 'error',
      'no-new-func': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'Math', property: 'random', message: 'Use a seeded stream from RngStreams.' },
        { object: 'Date', property: 'now', message: 'Use the kernel clock.' },
      ],
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ regex: '^node:', message: 'The simulation core runs in browsers too: no Node built-ins.' }],
          paths: NODE_BUILTINS.map((name) => ({ name, message: 'The simulation core runs in browsers too: no Node built-ins.' })),
        },
      ],
    },
  },
);
