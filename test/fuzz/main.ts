import { Worker } from 'node:worker_threads';
import { Command, InvalidArgumentError } from 'commander';
import { TOKEN_KINDS } from '../support/random-scenario.js';
import { TARGETS } from './targets.js';
import type { Job, WorkerMessage } from './worker.js';

/*
 * `npm run fuzz`: many cases of every fuzz target, spread over worker
 * threads, each case bounded in time. A case that does not finish in time
 * is counted as hung and its worker replaced. Prints, per target, how many
 * inputs were accepted, refused naming a path or limit, refused without
 * one, crashed and hung, with the command that reproduces each failure;
 * exits 1 if anything crashed, hung or was refused without a path.
 */

interface Counts {
  cases: number;
  accepted: number;
  rejected: number;
  unnamed: number;
  crashed: number;
  hung: number;
  slowestMs: number;
  seconds: number;
}

interface Failure {
  readonly target: string;
  readonly seed: number;
  readonly what: string;
}

const int = (v: string): number => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number.');
  return Number(v);
};

const program = new Command('fuzz')
  .option('--cases <n>', 'cases per target', int, 100_000)
  .option('--fencing-cases <n>', 'cases per store kind with a token source', int, 10_000)
  .option('--seed <n>', 'case i of a target is drawn from seed n + i', int, 20_260_614)
  .option('--workers <n>', 'worker threads', int, 2)
  .option('--timeout-ms <n>', 'time one case may take before it counts as hung', int, 60_000)
  .option('--target <name>', 'run only the targets whose name contains this')
  .parse();
const opts = program.opts<{ cases: number; fencingCases: number; seed: number; workers: number; timeoutMs: number; target?: string }>();

const plan: Array<{ name: string; cases: number }> = [
  ...TARGETS.map((t) => ({ name: t.name, cases: opts.cases })),
  ...TOKEN_KINDS.map((k) => ({ name: `fenced fault schedules on ${k}`, cases: opts.fencingCases })),
].filter((p) => opts.target === undefined || p.name.includes(opts.target));

const failures: Failure[] = [];

/** Runs cases [from, to) of a target on one worker at a time, replacing the worker after a hang. */
function runRange(name: string, from: number, to: number, counts: Counts): Promise<void> {
  return new Promise((resolve) => {
    let next = from;
    const startWorker = (): void => {
      if (next >= to) {
        resolve();
        return;
      }
      const job: Job = { target: name, seed: opts.seed, from: next, to };
      const worker = new Worker(new URL('./worker-entry.mjs', import.meta.url), { workerData: job, resourceLimits: { maxOldGenerationSizeMb: 4096 } });
      let current = -1;
      let timer: NodeJS.Timeout | undefined;
      let ended = false;
      const end = (): void => {
        if (ended) return;
        ended = true;
        clearTimeout(timer);
        void worker.terminate();
      };
      worker.on('message', (m: WorkerMessage) => {
        if (m.type === 'start') {
          current = m.index;
          clearTimeout(timer);
          timer = setTimeout(() => {
            counts.hung++;
            counts.cases++;
            failures.push({ target: name, seed: opts.seed + current, what: `hung: still running after ${opts.timeoutMs} ms` });
            next = current + 1;
            end();
            startWorker();
          }, opts.timeoutMs);
        } else if (m.type === 'done') {
          clearTimeout(timer);
          counts.cases++;
          counts[m.kind === 'unnamed' ? 'unnamed' : m.kind]++;
          counts.slowestMs = Math.max(counts.slowestMs, m.ms);
          if (m.kind === 'crashed' || m.kind === 'unnamed') failures.push({ target: name, seed: opts.seed + m.index, what: m.message });
          next = m.index + 1;
        } else {
          end();
          resolve();
        }
      });
      worker.on('error', (err: Error) => {
        if (ended) return;
        end();
        // A worker that cannot even start would fail the same way again: stop rather than retry for ever.
        if (current < next) throw new Error(`a fuzz worker failed to start: ${err.message}`);
        // One that dies on a case (out of memory, say) loses only that case.
        counts.crashed++;
        counts.cases++;
        failures.push({ target: name, seed: opts.seed + current, what: `the worker died: ${err.message}` });
        next = current + 1;
        startWorker();
      });
    };
    startWorker();
  });
}

async function runTarget(name: string, cases: number): Promise<Counts> {
  const counts: Counts = { cases: 0, accepted: 0, rejected: 0, unnamed: 0, crashed: 0, hung: 0, slowestMs: 0, seconds: 0 };
  const started = performance.now();
  const share = Math.ceil(cases / opts.workers);
  const ranges = Array.from({ length: opts.workers }, (_, w) => [w * share, Math.min(cases, (w + 1) * share)] as const).filter(([a, b]) => a < b);
  let lastReport = performance.now();
  const progress = setInterval(() => {
    if (performance.now() - lastReport < 30_000) return;
    lastReport = performance.now();
    process.stderr.write(`  ${name}: ${counts.cases}/${cases}\n`);
  }, 5000);
  await Promise.all(ranges.map(([a, b]) => runRange(name, a, b, counts)));
  clearInterval(progress);
  counts.seconds = (performance.now() - started) / 1000;
  return counts;
}

const rows: Array<{ target: string } & Counts> = [];
for (const p of plan) {
  process.stderr.write(`fuzzing ${p.name} (${p.cases} cases)\n`);
  rows.push({ target: p.name, ...(await runTarget(p.name, p.cases)) });
}

const head = ['target', 'cases', 'accepted', 'rejected naming a path', 'rejected without', 'crashed', 'hung', 'slowest case', 'time'];
const cells = rows.map((r) => [
  r.target,
  String(r.cases),
  String(r.accepted),
  String(r.rejected),
  String(r.unnamed),
  String(r.crashed),
  String(r.hung),
  `${Math.round(r.slowestMs)} ms`,
  `${Math.round(r.seconds)} s`,
]);
const widths = head.map((h, i) => cells.reduce((w, c) => Math.max(w, c[i]!.length), h.length));
const line = (c: string[]): string => c.map((x, i) => (i === 0 ? x.padEnd(widths[i]!) : x.padStart(widths[i]!))).join('  ');
console.log(line(head));
for (const c of cells) console.log(line(c));
const total = rows.reduce((t, r) => ({ crashed: t.crashed + r.crashed, hung: t.hung + r.hung, unnamed: t.unnamed + r.unnamed }), {
  crashed: 0,
  hung: 0,
  unnamed: 0,
});
console.log(`\n${total.crashed} crashed, ${total.hung} hung, ${total.unnamed} refused without naming a path (target: 0 each).`);
for (const f of failures.slice(0, 20)) {
  console.log(`\n${f.target}, case seed ${f.seed}: ${f.what}`);
  console.log(`  reproduce: npm run fuzz -- --target '${f.target}' --seed ${f.seed} --cases 1 --fencing-cases 1 --workers 1`);
}
if (failures.length > 20) console.log(`\n...and ${failures.length - 20} more failures.`);
process.exitCode = total.crashed + total.hung + total.unnamed > 0 ? 1 : 0;
