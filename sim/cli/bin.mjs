#!/usr/bin/env node
// The `locklab` command: loads the compiled program, dist/lib/cli.js, which
// `npm run build:lib` writes (`npm ci` runs it, and the published package
// ships it). Plain JavaScript, so it needs nothing but Node to start.
try {
  await import('../../dist/lib/cli.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/lib/cli.js')) throw err;
  process.stderr.write('locklab: the compiled command (dist/lib/cli.js) is missing: run `npm run build:lib` first.\n');
  process.exitCode = 1;
}
