import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: '.',
  server: { host: '127.0.0.1' },
  test: {
    include: ['test/**/*.test.ts'],
    environment: 'node',
    testTimeout: 60_000,
  },
});
