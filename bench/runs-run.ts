/**
 * Runs per second of a built-in scenario in this fresh process, printed as
 * JSON: bench/run.ts starts it with a sweep worker's V8 flags. With
 * --compiled it times the compiled package (dist/lib), as a sweep's
 * workers run it; else the TypeScript source.
 * Usage: runs-run.ts NAME REPS [--compiled] [--set PATH=VALUE ...]
 */
import { runArgs, runsPerSec, type Library } from './runs.js';

const args = process.argv.slice(2);
const { words, sets } = runArgs(args);
const [name = 'pause-past-expiry', reps = '7'] = words;
// A path in a variable: the type is the source's (Library), not the build's.
const compiled = '../dist/lib/index.js';
const lib = args.includes('--compiled') ? ((await import(compiled)) as Library) : undefined;
process.stdout.write(`${JSON.stringify(runsPerSec(name, Number(reps), sets, lib))}\n`);
