#!/usr/bin/env node
// Entry point of the `locklab` command: loads the TypeScript CLI through tsx.
import { register } from 'tsx/esm/api';

register();
// A reader that goes away early (`locklab stores | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
