/**
 * Runs per second of a built-in scenario in this fresh process, printed as
 * JSON: bench/run.ts starts it with a sweep worker's V8 flags. With
 * --compiled it times the compiled package (dist/lib), as a sweep's
 * workers run it; else the TypeScript source.
 * Usage: runs-run.ts NAME REPS [--compiled] [--set PATH=VALUE ...]
 */
import { runsPerSec, type Library } from './runs.js';

const args = process.argv.slice(2);
// `--set PATH=VALUE` (repeatable) overrides the scenario, as on the command line.
const sets = args.flatMap((a, i) => (a === '--set' && args[i + 1] !== undefined ? [args[i + 1]!] : []));
const [name = 'pause-past-expiry', reps = '7'] = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--set');
// A path in a variable: the type is the source's (Library), not the build's.
const compiled = '../dist/lib/index.js';
const lib = args.includes('--compiled') ? ((await import(compiled)) as Library) : undefined;
process.stdout.write(`${JSON.stringify(runsPerSec(name, Number(reps), sets, lib))}\n`);
