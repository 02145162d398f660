/**
 * `npm run soak`: a long run on real servers, as a bench (not a CI test).
 * 50 client processes share one lock on one real Redis (AOF always, so its
 * fencing counter survives a restart), each looping acquire (blocking),
 * work, write, release, with fencing on at the resource; every 10 s a fifth
 * of the clients are stopped with SIGSTOP for 3 s (past the 2 s lease) and
 * every 60 s Redis is restarted. It prints, as JSON: acquisitions, writes, the stale
 * writes the resource accepted and which documented limit of fencing
 * (docs/fencing.md) let each through, and the servers and temporary
 * directories left behind (target 0). Then it runs the same again in a
 * child process, presses Ctrl-C there half-way, and counts what that left
 * behind, and whether the partial trace was written and marked so.
 *
 *   npm run soak -- --minutes 10 --clients 50 --interrupt-after-s 60
 *
 * Every loop is bounded: the run's own time budget ends it, a child that
 * does not exit within 60 s of its Ctrl-C is killed and reported, and a run
 * whose client processes take more than 6 GiB together is stopped there
 * (reported as stoppedForMemory), since the machine is shared.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runReal } from '../sim/real/runner.js';
import { soakScenario, type SoakOptions } from './soak-scenario.js';
import { serializeTrace } from '../sim/trace/io.js';
import type { TraceDocument } from '../sim/trace/types.js';
import { explainStaleWrites } from '../test/support/fencing-limits.js';

function numberArg(args: readonly string[], name: string, fallback: number, min: number, max: number): number {
  const at = args.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const v = Number(args[at + 1]);
  if (!Number.isFinite(v) || v < min || v > max) {
    process.stderr.write(`soak: --${name}: expected a number from ${min} to ${max}, got ${String(args[at + 1])}\n`);
    process.exit(2);
  }
  return v;
}

/** The most memory the client processes of a run may take, all together, before the soak stops it (the machine is shared). */
const MAX_CLIENTS_RSS_MB = 6_144;

/** The resident memory of the client processes `runner` started, in MiB, from /proc. */
function clientsRssMb(runner: number): { totalMb: number; largestMb: number; processes: number } {
  let totalKb = 0;
  let largestKb = 0;
  let processes = 0;
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      if (Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]) !== runner) continue;
      const kb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
      totalKb += kb;
      largestKb = Math.max(largestKb, kb);
      processes++;
    } catch {
      // The process ended while we looked.
    }
  }
  return { totalMb: Math.round(totalKb / 1024), largestMb: Math.round(largestKb / 1024), processes };
}

/**
 * Watches the memory of `runner`'s client processes every 5 s; past
 * MAX_CLIENTS_RSS_MB it calls `stop` once. Returns the peak seen and a
 * function that ends the watch.
 */
function watchMemory(runner: number, stop: () => void): { peak: { totalMb: number; largestMb: number }; stopped: () => boolean; end: () => void } {
  const peak = { totalMb: 0, largestMb: 0 };
  let over = false;
  const timer = setInterval(() => {
    const now = clientsRssMb(runner);
    peak.totalMb = Math.max(peak.totalMb, now.totalMb);
    peak.largestMb = Math.max(peak.largestMb, now.largestMb);
    if (!over && now.totalMb > MAX_CLIENTS_RSS_MB) {
      over = true;
      process.stderr.write(`soak: the clients take ${now.totalMb} MiB, over ${MAX_CLIENTS_RSS_MB} MiB: stopping the run\n`);
      stop();
    }
  }, 5_000);
  return { peak, stopped: () => over, end: () => clearInterval(timer) };
}

/** The harness's temporary directories, one kind per server program (sim/real/harness). */
const HARNESS_DIR = /^locklab-(redis|memcached|postgres|etcd|zookeeper)-/;
const HARNESS_PATH = /\/locklab-(redis|memcached|postgres|etcd|zookeeper)-/;

/** What a run may leave behind: the harness's temporary directories, and processes started in them. */
function leftovers(): { dirs: string[]; processes: string[] } {
  const dirs = readdirSync(tmpdir())
    .filter((d) => HARNESS_DIR.test(d))
    .map((d) => join(tmpdir(), d));
  const processes: string[] = [];
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
      // A server names its directory on its command line, or runs in it (memcached).
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      if (HARNESS_PATH.test(cmd) || HARNESS_PATH.test(cwd)) processes.push(`${pid} ${cmd.slice(0, 120)}`);
    } catch {
      // The process ended while we looked.
    }
  }
  return { dirs, processes };
}

function newSince(before: { dirs: string[]; processes: string[] }): { dirs: string[]; processes: string[] } {
  const now = leftovers();
  return { dirs: now.dirs.filter((d) => !before.dirs.includes(d)), processes: now.processes.filter((p) => !before.processes.includes(p)) };
}

function figures(doc: TraceDocument) {
  const count = (kind: string) => doc.events.filter((e) => e.kind === kind).length;
  const explained = explainStaleWrites(doc);
  const byLimit: Record<string, number> = {};
  for (const x of explained) byLimit[x.limit ?? 'unexplained'] = (byLimit[x.limit ?? 'unexplained'] ?? 0) + 1;
  return {
    events: doc.events.length,
    stop: doc.stop.reason,
    acquisitions: count('acquire.ok'),
    writesAccepted: count('write.accepted'),
    writesRefusedByFencing: count('write.refused'),
    pauses: count('process.pause'),
    restarts: count('store.down'),
    staleWritesAccepted: explained.length,
    staleWritesAcceptedByLimit: byLimit,
    staleWritesAcceptedBeyondDocumentedLimits: byLimit.unexplained ?? 0,
    doubleOwnershipWindows: doc.verdict.doubleOwnership.length,
  };
}

/** The Ctrl-C half: the same soak in a child process, interrupted after `afterS`, then what it left. */
async function interrupted(o: SoakOptions, afterS: number) {
  const before = leftovers();
  const dir = mkdtempSync(join(tmpdir(), 'soak-out-'));
  const out = join(dir, 'partial.json');
  const child = spawn(
    process.execPath,
    [...process.execArgv, fileURLToPath(import.meta.url), '--child', out, '--minutes', String(o.minutes), '--clients', String(o.clients)],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  const memory = watchMemory(child.pid ?? -1, () => child.kill('SIGINT'));
  await new Promise((r) => setTimeout(r, afterS * 1000));
  const sentAt = Date.now();
  child.kill('SIGINT');
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 60_000))]);
  if (code === 'hung') child.kill('SIGKILL');
  const exitMs = Date.now() - sentAt;
  memory.end();
  // Give killed servers a moment to be reaped before counting.
  await new Promise((r) => setTimeout(r, 1_000));
  const left = newSince(before);
  let partial: { written: boolean; markedPartial: boolean; events: number } = { written: false, markedPartial: false, events: 0 };
  if (existsSync(out)) {
    const doc = JSON.parse(readFileSync(out, 'utf8')) as TraceDocument;
    partial = { written: true, markedPartial: doc.partial === true, events: doc.events.length };
  }
  rmSync(dir, { recursive: true, force: true });
  return {
    interruptedAfterS: afterS,
    exitCode: code,
    exitMs,
    partialTrace: partial,
    clientsPeakRssMb: memory.peak,
    stoppedForMemory: memory.stopped(),
    orphanServers: left.processes.length,
    orphanDirs: left.dirs.length,
    left,
  };
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const o: SoakOptions = {
    minutes: numberArg(args, 'minutes', 10, 0.5, 30),
    clients: numberArg(args, 'clients', 50, 2, 100),
  };
  const scenario = soakScenario(o);
  const childAt = args.indexOf('--child');
  if (childAt !== -1) {
    // The interrupted run: its partial trace goes to the file the parent named.
    const file = args[childAt + 1]!;
    await runReal(scenario, { onInterrupt: (doc) => writeFileSync(file, serializeTrace(doc)) });
    return;
  }
  const afterS = numberArg(args, 'interrupt-after-s', 60, 5, o.minutes * 60);
  const before = leftovers();
  const startedAt = Date.now();
  let ticks = 0;
  const abort = new AbortController();
  const memory = watchMemory(process.pid, () => abort.abort());
  const doc = await runReal(scenario, {
    signal: abort.signal,
    // About once a second: say how far it is every 30.
    progress: (line) => {
      if (++ticks % 30 === 0) process.stderr.write(`soak: ${line.split('  ')[0]} of ${o.minutes * 60} s\n`);
    },
  });
  memory.end();
  const wallS = (Date.now() - startedAt) / 1000;
  await new Promise((r) => setTimeout(r, 1_000));
  const left = newSince(before);
  const report = {
    soak: {
      clients: o.clients,
      minutes: o.minutes,
      wallS: Math.round(wallS),
      ...figures(doc),
      clientsPeakRssMb: memory.peak,
      stoppedForMemory: memory.stopped(),
      orphanServers: left.processes.length,
      orphanDirs: left.dirs.length,
      left,
    },
    ctrlC: await interrupted(o, Math.min(afterS, (o.minutes * 60) / 2)),
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
