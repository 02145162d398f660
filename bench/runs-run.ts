/**
 * Runs per second of a built-in scenario in this fresh process, printed as
 * JSON: bench/run.ts starts it with a sweep worker's V8 flags.
 * Usage: runs-run.ts NAME REPS
 */
import { runsPerSec } from './runs.js';

const [name = 'pause-past-expiry', reps = '7'] = process.argv.slice(2);
process.stdout.write(`${JSON.stringify(runsPerSec(name, Number(reps)))}\n`);
