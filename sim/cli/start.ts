// The `locklab` command's program. `npm run build:lib` compiles it to
// dist/lib/cli.js, which needs only the package's dependencies at run time
// (sim/cli/bin.mjs loads it); `npm run locklab -- …` runs it from the sources.
import './node-hash.js';
import { main } from './main.js';

// A reader that goes away early (`locklab stores | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw err;
  });
}
process.exitCode = await main(process.argv.slice(2));
