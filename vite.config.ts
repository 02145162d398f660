import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

/*
 * One config for the lab (Vite serves and builds web/) and for the tests
 * (Vitest runs every test/**.test.ts from the repository root). The app's
 * root is web/, but the tests' include stays relative to the repository.
 */
export default defineConfig({
  root: 'web',
  base: './',
  plugins: [react()],
  server: { host: '127.0.0.1', strictPort: false },
  preview: { host: '127.0.0.1' },
  worker: { format: 'es' },
  build: {
    outDir: '../dist/web',
    emptyOutDir: true,
    target: 'es2022',
    // The 100k-event bench trace and the JSON schemas are data, not code; keep the warning meaningful for code.
    chunkSizeWarningLimit: 600,
  },
  test: {
    root: '.',
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
