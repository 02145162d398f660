import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Colors } from 'picocolors/types.js';
import { InputError } from '../errors.js';
import { runScenario } from '../run.js';
import { applyOverrides, type Override } from '../scenario/set.js';
import type { Scenario } from '../scenario/types.js';
import { serializeTrace } from '../trace/io.js';
import type { TraceDocument, TraceEvent } from '../trace/types.js';
import { marksByProcess, stepAt, StepMarker, type StepMarks } from '../clients/step-marks.js';
import { formatDuration, formatInstant } from '../time.js';
import { agree, alignTimelines, findingOf } from '../real/agreement.js';
import type { ClientLibrary } from '../real/ipc.js';
import { writeFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { writeFileAtomic } from './files.js';
import { formatStop, formatTimeline, formatVerdict, runEndOf } from './format.js';
import { lockCyclesIn } from '../check/summary.js';
import { codeLineFinder, formatCode } from './run-command.js';
import { counted } from '../words.js';

/** What the real commands need from the CLI around them. */
export interface RealCli {
  readonly io: { out(t: string): void; err(t: string): void };
  readonly c: Colors;
  loadScenario(ref: string): { scenario: Scenario };
  collect(value: string, previous: Override[]): Override[];
  setCode(code: number): void;
}

const YEAR_MS = 31_536_000_000;

const SCHEMES: Readonly<Record<string, readonly string[]>> = {
  redis: ['redis:'],
  memcached: ['memcached:'],
  postgres: ['postgres:', 'postgresql:'],
  zookeeper: ['zookeeper:'],
  etcd: ['http:'],
};

function url(kind: string) {
  return (value: string, previous: string[] = []): string[] => {
    let u: URL;
    try {
      u = new URL(value);
    } catch {
      throw new InvalidArgumentError(`expected a URL like ${kind === 'etcd' ? 'http' : kind}://127.0.0.1:PORT, got "${value}".`);
    }
    if (!SCHEMES[kind]!.includes(u.protocol) || u.port === '') {
      throw new InvalidArgumentError(`expected a ${SCHEMES[kind]!.join(' or ')}//HOST:PORT URL, got "${value}".`);
    }
    return [...previous, value];
  };
}

interface RealOpts {
  client: ClientLibrary;
  set: Override[];
  json?: boolean;
  code?: boolean;
  out?: string;
  /** --max-time, in ms (commander names the option after its flag). */
  maxTime?: number;
  redis?: string[];
  memcached?: string[];
  postgres?: string[];
  zookeeper?: string[];
  etcd?: string[];
}

/** The real runner, loaded only when a real command runs: its server clients are heavy to load. */
async function realRunner(): Promise<typeof import('../real/runner.js') & typeof import('../real/nodes.js') & typeof import('../real/harness/binaries.js')> {
  const [runner, nodes, binaries] = await Promise.all([import('../real/runner.js'), import('../real/nodes.js'), import('../real/harness/binaries.js')]);
  return { ...runner, ...nodes, ...binaries };
}

type Runner = Awaited<ReturnType<typeof realRunner>>;

/** Given URLs, assigned to the scenario's nodes of each server kind in order. */
function urlsFor(r: Runner, scenario: Scenario, opts: RealOpts): Map<string, string> {
  const out = new Map<string, string>();
  const given = { redis: opts.redis, memcached: opts.memcached, postgres: opts.postgres, zookeeper: opts.zookeeper, etcd: opts.etcd };
  if (Object.values(given).every((v) => v === undefined)) return out;
  const needs = r.serverNeeds(scenario);
  // A URL for a server the scenario does not use is the mistake to name first, under its own option.
  for (const [kind, list] of Object.entries(given)) {
    if (list === undefined || needs.some((n) => n.server === kind)) continue;
    throw new InputError(`--${kind}`, [
      { path: '', message: `the scenario uses no ${kind} server (it runs on ${serversLine(needs)}), got ${counted(list.length, 'URL')}` },
    ]);
  }
  for (const [kind, list] of Object.entries(given)) {
    const nodes = needs.filter((n) => n.server === kind);
    if (list === undefined) {
      if (nodes.length > 0)
        throw new InputError(`--${kind}`, [
          {
            path: '',
            message: `the scenario needs ${counted(nodes.length, `${kind} server`)} (${nodes.map((n) => n.node).join(', ')}); give URLs for every server, or for none`,
          },
        ]);
      continue;
    }
    if (list.length !== nodes.length) {
      throw new InputError(`--${kind}`, [
        {
          path: '',
          message: `the scenario has ${counted(nodes.length, `${kind} node`)} (${nodes.map((n) => n.node).join(', ') || 'none'}), got ${counted(list.length, 'URL')}`,
        },
      ]);
    }
    nodes.forEach((n, i) => out.set(n.node, kind === 'postgres' ? completePostgresUrl(list[i]!) : list[i]!));
  }
  return out;
}

/**
 * A PostgreSQL URL with its user and database filled in as psql fills them
 * (PGUSER, else the account running the command; PGDATABASE, else the
 * user's name), so that Locklab's clients, Symfony's PDO, the check of the
 * server before the run and its clean-up after it all connect to the same
 * database as the same user, and a message names both.
 */
export function completePostgresUrl(value: string, env: NodeJS.ProcessEnv = process.env, account: () => string = () => userInfo().username): string {
  const u = new URL(value);
  if (u.username !== '' && u.pathname !== '' && u.pathname !== '/') return value;
  if (u.username === '') u.username = encodeURIComponent(env.PGUSER || account());
  if (u.pathname === '' || u.pathname === '/') u.pathname = `/${encodeURIComponent(env.PGDATABASE || decodeURIComponent(u.username))}`;
  return u.href;
}

/** The servers a run used, each kind once, with its nodes when they are named otherwise: "redis", "redis (A, B, C); postgresql (pg)". */
export function serversLine(needs: ReadonlyArray<{ readonly server: string; readonly node: string }>): string {
  const nodesByServer = new Map<string, string[]>();
  for (const n of needs) nodesByServer.set(n.server, [...(nodesByServer.get(n.server) ?? []), n.node]);
  return [...nodesByServer].map(([server, nodes]) => (nodes.length === 1 && nodes[0] === server ? server : `${server} (${nodes.join(', ')})`)).join('; ');
}

function realHeader(r: Runner, doc: TraceDocument, library: ClientLibrary, c: Colors): string {
  return c.dim(
    `Recorded on real servers (${serversLine(r.serverNeeds(doc.scenario))}) with ${library === 'symfony' ? 'Symfony Lock 5.4' : "Locklab's own lock code"}${doc.partial === true ? ' — interrupted: partial trace' : ''}`,
  );
}

/** The line of its client's code each client event of a real run happened on, by the steps its processes reported as they ran. */
function realLineOf(scenario: Scenario, marks: StepMarks): (e: TraceEvent) => number | undefined {
  const by = marksByProcess(marks);
  const lineOf = codeLineFinder(scenario);
  return (e) => {
    const m = by.get(e.actor);
    return m === undefined ? undefined : lineOf(e.actor, stepAt(m, e.seq));
  };
}

/** The scenario with its options applied: --set, then --max-time as its time budget, which the run and its trace both keep. */
function scenarioOf(cli: RealCli, ref: string, opts: RealOpts): Scenario {
  const scenario = applyOverrides(cli.loadScenario(ref).scenario, opts.set);
  return opts.maxTime === undefined ? scenario : { ...scenario, budget: { ...scenario.budget, maxTimeMs: opts.maxTime } };
}

/** Runs the real scenario, turning what cannot be run into one clear message. */
async function real(r: Runner, scenario: Scenario, opts: RealOpts, cli: RealCli, marks?: StepMarker): Promise<TraceDocument> {
  const started = Date.now();
  try {
    return await r.runReal(scenario, {
      library: opts.client,
      ...(marks === undefined ? {} : { marks }),
      urls: urlsFor(r, scenario, opts),
      progress: (line) => cli.io.err(cli.c.dim(`[real ${((Date.now() - started) / 1000).toFixed(1)} s] ${line}\n`)),
      onInterrupt: (doc) => {
        if (opts.out !== undefined) writeFileSync(opts.out, serializeTrace(doc));
        cli.io.err(
          `locklab: interrupted; ${opts.out === undefined ? 'no --out file, so the partial trace is not kept' : `partial trace written to ${opts.out}`}\n`,
        );
      },
    });
  } catch (err) {
    if (err instanceof r.UnsupportedScenarioError) throw new InputError(scenario.name, [{ path: err.path, message: err.message.slice(err.path.length + 2) }]);
    // A program missing (its message names it and its package), a server that cannot be reached or started, a client that failed: one line, no stack.
    if (err instanceof Error) throw new InputError(`real run of ${scenario.name}`, [{ path: '', message: err.message }]);
    throw err;
  }
}

function addServerOptions(cmd: Command): Command {
  return cmd
    .option('--redis <url>', 'use this Redis instead of starting one (repeat for each node, in order)', url('redis'))
    .option('--memcached <url>', 'use this memcached (memcached://HOST:PORT)', url('memcached'))
    .option('--postgres <url>', 'use this PostgreSQL (postgres://USER@HOST:PORT/DB)', url('postgres'))
    .option('--zookeeper <url>', 'use this ZooKeeper (zookeeper://HOST:PORT)', url('zookeeper'))
    .option('--etcd <url>', 'use this etcd (http://HOST:PORT)', url('etcd'));
}

export function registerRealCommands(program: Command, cli: RealCli): void {
  const { io, c } = cli;
  const clientOption = (): Option =>
    new Option('--client <library>', 'the lock code each client runs: node (Locklab\u2019s own) or symfony (the real Symfony Lock 5.4, in PHP)')
      .choices(['node', 'symfony'])
      .default('node');
  const maxTime = new Option('--max-time <ms>', 'stop the run after this long: its time budget (default: the scenario\u2019s budget.maxTimeMs)').argParser(
    (v) => {
      // The bounds of budget.maxTimeMs, which it stands for.
      if (!/^\d+$/.test(v) || Number(v) < 1 || Number(v) > YEAR_MS)
        throw new InvalidArgumentError(`expected a whole number of milliseconds from 1 to ${YEAR_MS} (a year), got "${v}".`);
      return Number(v);
    },
  );

  addServerOptions(
    program
      .command('real')
      .description('Run a scenario against real servers (started for the run unless URLs are given) and print its timeline and verdict.')
      .argument('<scenario>', 'scenario file, or built-in name (see `locklab scenarios`)')
      .addOption(clientOption())
      .option('--set <path=value>', 'override a scenario field (repeatable)', cli.collect, [] as Override[])
      .option('--json', 'print the trace document (JSON) instead of the timeline')
      .option('--code', "print each client's code as PHP, numbered, above the timeline, which gives each client event its line")
      .option('--out <file>', 'also write the trace document to this file')
      .addOption(maxTime),
  )
    .addHelpText(
      'after',
      `
Examples:
  locklab real pause-past-expiry
  locklab real pause-past-expiry --client symfony --code
  locklab real pause-past-expiry --client symfony --out trace.json
  locklab real pause-past-expiry --redis redis://127.0.0.1:6379

Each client runs as its own OS process: a pause is a real SIGSTOP, a crash a real
SIGKILL. Partitions are applied in the clients' runtime (requests to cut-off nodes
are dropped), since loopback servers cannot be cut apart. A server given by URL is
left as it was found: the run refuses to start if a key, znode, row or advisory lock
it would use is there already, and removes what it wrote when it ends. Exit codes:
0 the run completed, 2 bad input, a scenario that cannot be made real or a server
already holding what the run would write, 3 the time budget ran out.`,
    )
    .action(async (ref: string, opts: RealOpts) => {
      if (opts.code === true && opts.json === true)
        throw new InputError('--code', [{ path: '', message: "prints the clients' code above the timeline, which --json does not print" }]);
      const scenario = scenarioOf(cli, ref, opts);
      const r = await realRunner();
      const marker = opts.code === true ? new StepMarker() : undefined;
      const doc = await real(r, scenario, opts, cli, marker);
      const text = serializeTrace(doc);
      if (opts.out !== undefined) writeFileAtomic(opts.out, text);
      if (opts.json === true) io.out(text);
      else {
        const lineOf = marker === undefined ? undefined : realLineOf(scenario, marker.marks);
        if (marker !== undefined) io.out(`${formatCode(scenario, c)}\n\n`);
        io.out(
          `${realHeader(r, doc, opts.client, c)}\n${formatTimeline(doc, c, undefined, lineOf)}\n\n${formatVerdict(doc, c, lockCyclesIn(doc.events))}\n${formatStop(runEndOf(doc), c)}\n`,
        );
        if (opts.out !== undefined) io.out(c.dim(`Trace written to ${opts.out}\n`));
      }
      cli.setCode(doc.stop.reason === 'completed' ? 0 : 3);
    });

  addServerOptions(
    program
      .command('compare')
      .description('Run a scenario simulated and on real servers, and print both verdicts and the two timelines aligned.')
      .argument('<scenario>', 'scenario file, or built-in name')
      .addOption(clientOption())
      .option('--set <path=value>', 'override a scenario field (repeatable)', cli.collect, [] as Override[])
      .option('--json', 'print both traces and whether they agree, as JSON')
      .option('--out <file>', 'also write the real trace to this file')
      .addOption(maxTime),
  )
    .addHelpText('after', '\nExit codes: 0 the simulation and the real run agree (outcome and double ownership), 1 they do not, 2 bad input.')
    .action(async (ref: string, opts: RealOpts) => {
      const scenario = scenarioOf(cli, ref, opts);
      const sim = runScenario(scenario);
      const r = await realRunner();
      const realDoc = await real(r, scenario, opts, cli);
      if (opts.out !== undefined) writeFileAtomic(opts.out, serializeTrace(realDoc));
      const same = agree(sim.verdict, realDoc.verdict);
      if (opts.json === true) {
        io.out(`${JSON.stringify({ agree: same, simulated: findingOf(sim.verdict), real: findingOf(realDoc.verdict), sim, realTrace: realDoc }, null, 2)}\n`);
      } else {
        const rows = alignTimelines(sim, realDoc);
        const t = (us: number | null): string => (us === null ? '—' : formatInstant(us)).padStart(10);
        const w = Math.max(6, ...rows.map((r) => r.actor.length));
        io.out(`${c.bold(`${'simulated'.padStart(10)}  ${'real'.padStart(10)}  ${'actor'.padEnd(w)}  event`)}\n`);
        for (const r of rows) {
          const gap = r.simUs !== null && r.realUs !== null ? r.realUs - r.simUs : null;
          const note =
            gap === null
              ? c.yellow(r.simUs === null ? '  only in the real run' : '  only in the simulation')
              : Math.abs(gap) >= 250_000
                ? c.yellow(`  ${gap > 0 ? '+' : '-'}${formatDuration(Math.abs(gap))}`)
                : '';
          io.out(`${t(r.simUs)}  ${t(r.realUs)}  ${r.actor.padEnd(w)}  ${r.kind}${r.whose === undefined ? '' : ` (${r.whose})`}${note}\n`);
        }
        io.out(
          `\n${c.bold('Simulated:')} ${formatVerdict(sim, c, lockCyclesIn(sim.events))}\n\n${c.bold('Real:')} ${realHeader(r, realDoc, opts.client, c)}\n${formatVerdict(realDoc, c, lockCyclesIn(realDoc.events))}\n\n`,
        );
        io.out(
          same
            ? c.green('The simulation and the real servers agree: same outcome, same double ownership.\n')
            : c.red(`They differ: simulated ${JSON.stringify(findingOf(sim.verdict))}, real ${JSON.stringify(findingOf(realDoc.verdict))}.\n`),
        );
      }
      cli.setCode(same ? 0 : 1);
    });
}
