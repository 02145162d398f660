import { fork, type ChildProcess } from 'node:child_process';
import { check } from '../check/checker.js';
import type { StepMarkSink } from '../clients/step-marks.js';
import type { FaultSpec, Scenario } from '../scenario/types.js';
import { TRACE_SCHEMA, type Belief, type TraceDocument } from '../trace/types.js';
import type { WriteRequest } from '../world/resource.js';
import { etcdClient } from './adapters/etcd.js';
import { fenceKey, lockRedis } from './adapters/redis.js';
import { Harness, janitor, type PostgresServer, type Server } from './harness/index.js';
import { signalGroup } from './harness/cleanup.js';
import { numberEvents, numberMarks, type RawMark } from './in-process.js';
import type { ClientLibrary, FromChild, ToChild } from './ipc.js';
import { nodeGroups, realNode, serverNeeds, UnsupportedScenarioError, type ServerNeed } from './nodes.js';
import { TruthObserver } from './observer.js';
import { RealResource } from './resource.js';
import { machineClocks, type RawEvent } from './runtime/real-runtime.js';
import { RunClock } from './runtime/time.js';
import { checkSymfonyStore } from './symfony/node.js';
import { checkSymfonyInstalled } from './symfony/php.js';
import { childEntry } from './child-bundle.js';
import { checkFootprintsFree, ETCD_REVISION_KEY, footprintsOf, removeFootprints } from './footprint.js';

/** How long every client process has to connect before the run starts. */
const READY_TIMEOUT_MS = 30_000;
/** Time 0 is this long after the last client is ready, so that every process is waiting for it. */
const LEAD_MS = 300;
/** After the last client exits, the observer gets this long to see what ended meanwhile. */
const SETTLE_MS = 600;

export interface RealRunOptions {
  /** The lock code each client runs: the simulation's (node) or the real Symfony Lock. */
  readonly library?: ClientLibrary;
  /** Servers to use instead of starting them, by store node name (all or none). */
  readonly urls?: ReadonlyMap<string, string>;
  /** Called about once a second with what is going on. */
  readonly progress?: (line: string) => void;
  /** Stops the run early (Ctrl-C): the trace is then marked partial. */
  readonly signal?: AbortSignal;
  /** The longest the run may last, in ms (default: the scenario's time budget). */
  readonly maxTimeMs?: number;
  /**
   * Where to tell which step of its script each client process ran, event by
   * event (the lab's code panel): the same marks a simulated run gives, kept
   * beside the trace, never in it.
   */
  readonly marks?: StepMarkSink;
  /**
   * Called synchronously with the trace so far, marked partial, when the
   * process is interrupted (Ctrl-C, SIGTERM) — just before every server and
   * client is killed.
   */
  readonly onInterrupt?: (partialTrace: TraceDocument) => void;
}

/** The faults the real runner can play, and how each is made real. */
const REAL_FAULTS: ReadonlySet<FaultSpec['kind']> = new Set(['pause', 'crash', 'store-restart', 'connection-loss', 'clock-jump', 'partition']);

/** Refuses, with the field and the reason, what cannot be made real. */
export function checkRealScenario(scenario: Scenario, library: ClientLibrary): ServerNeed[] {
  const needs = serverNeeds(scenario);
  if (library === 'symfony') checkSymfonyStore(scenario);
  scenario.faults.forEach((f, i) => {
    if (!REAL_FAULTS.has(f.kind)) {
      throw new UnsupportedScenarioError(`faults[${i}].kind`, `the real runner cannot make a ${f.kind} fault real (it plays ${[...REAL_FAULTS].join(', ')})`);
    }
    if (f.kind === 'clock-jump') {
      const served = needs.filter((n) => n.machine === f.machine);
      const hostsClient = scenario.clients.some((c) => c.machine === f.machine);
      for (const n of served) {
        if (n.server !== 'postgres') {
          throw new UnsupportedScenarioError(
            `faults[${i}].machine`,
            n.server === 'redis'
              ? "Redis's clock cannot be stepped: Debian's redis-server (jemalloc) aborts under libfaketime"
              : `${n.server} times its expiry on a monotonic clock, which a wall-clock step does not move`,
          );
        }
      }
      if (served.length === 0 && !hostsClient) throw new UnsupportedScenarioError(`faults[${i}].machine`, `nothing real runs on machine ${f.machine}`);
    }
  });
  return needs;
}

async function startServer(h: Harness, need: ServerNeed): Promise<Server> {
  switch (need.server) {
    case 'redis':
      return h.redis({ name: need.node, persistence: need.persistence ?? 'none' });
    case 'memcached':
      return h.memcached({ name: need.node, ...(need.memoryMb === undefined ? {} : { memoryMb: need.memoryMb }) });
    case 'postgres':
      return h.postgres({ name: need.node, clock: need.clock === true });
    case 'zookeeper':
      return h.zookeeper({ name: need.node, ...(need.tickMs === undefined ? {} : { tickMs: need.tickMs }) });
    case 'etcd':
      return h.etcd({ name: need.node });
  }
}

/** Gives the servers the starting points the scenario names: the first fencing token, etcd's revision. */
async function prepare(scenario: Scenario, needs: readonly ServerNeed[], urls: ReadonlyMap<string, string>): Promise<void> {
  const store = scenario.store;
  if (store.kind === 'redis' && typeof store.fencingTokenStart === 'number' && store.fencingTokenStart > 1) {
    const r = lockRedis(urls.get(store.name)!);
    try {
      await r.connect();
      const keys = new Set(scenario.clients.map((c) => `${String(store.keyPrefix ?? '')}${c.key}`));
      for (const k of keys) await r.set(fenceKey(k), String(store.fencingTokenStart - 1));
    } finally {
      r.disconnect();
    }
  }
  for (const n of needs.filter((x) => x.server === 'etcd')) {
    const start = Number((store as { revisionStart?: number }).revisionStart ?? 1);
    const c = etcdClient(urls.get(n.node)!);
    try {
      // Each write moves the revision on by one; the first lock key then gets `revisionStart`. A server there already is not written to.
      let revision = Number((await c.get(ETCD_REVISION_KEY).exec()).header.revision);
      while (revision < start - 1) revision = Number((await c.put(ETCD_REVISION_KEY).value('').exec()).header.revision);
    } finally {
      c.close();
    }
  }
}

/**
 * Servers the user named (--redis URL and the like) are asked first, each by
 * its own adapter, which gives up within seconds naming the node and its
 * address: a wrong URL is the user's mistake, told before anything starts.
 */
async function reachAll(needs: readonly ServerNeed[], urls: ReadonlyMap<string, string>): Promise<void> {
  await Promise.all(
    needs.map(async (n) => {
      const node = realNode(n, urls.get(n.node)!, 'locklab');
      try {
        await node.open();
      } finally {
        await node.close().catch(() => undefined);
      }
    }),
  );
}

/** Sends to a client process unless it is gone (a message to a dead process is no error here). */
function tell(proc: ChildProcess, m: ToChild): void {
  if (proc.connected) proc.send(m, (err) => void err);
}

interface Child {
  readonly name: string;
  readonly machine: string;
  readonly key: string;
  readonly proc: ChildProcess;
  exited: boolean;
  done: boolean;
  /** Last belief it reported, for the events the runner records about it (pause, resume, crash). */
  belief: Belief;
  /** The client's clock when it reported `belief`: its lease keeps running down from there. */
  beliefLocalUs: number;
  lastKind: string;
  failure: string | undefined;
}

/**
 * Runs a scenario against real servers: each client as its own OS process
 * running the simulation's lock code (or the real Symfony Lock), faults made
 * real (SIGSTOP, SIGKILL, server kills and restarts, terminated backends,
 * stepped clocks), every event stamped from one monotonic clock, and the
 * trace judged by the same checker.
 */
export async function runReal(scenario: Scenario, opts: RealRunOptions = {}): Promise<TraceDocument> {
  const library = opts.library ?? 'node';
  const needs = checkRealScenario(scenario, library);
  if (library === 'symfony') await checkSymfonyInstalled(needs.map((n) => n.server));
  const harness = new Harness();
  const raw: RawEvent[] = [];
  const rawMarks: RawMark[] = [];
  const clock = new RunClock(process.hrtime.bigint());
  const machines = machineClocks(scenario.machines);
  const children: Child[] = [];
  const timers: NodeJS.Timeout[] = [];
  let observer: TruthObserver | undefined;
  let partial = false;
  /** For servers the user named: takes away what the run wrote on them. */
  let leaveAsFound: (() => Promise<void>) | undefined;
  let stopReason: TraceDocument['stop']['reason'] = 'completed';
  /** When the time budget ran out, by the run's clock: the run went on that long, whatever its last event. */
  let stoppedAtUs: number | undefined;
  const servers = new Map<string, Server>();
  /** Set once the run is over: faults still scheduled do nothing. */
  let closed = false;
  const inFlight = new Set<Promise<void>>();
  const faultErrors: string[] = [];

  const emit = (e: RawEvent): void => {
    raw.push(e);
    observer?.see(e);
  };
  const build = (): TraceDocument => {
    const events = numberEvents(raw);
    if (opts.marks !== undefined) numberMarks(raw, rawMarks, opts.marks);
    const doc: TraceDocument = {
      schema: TRACE_SCHEMA,
      source: 'real',
      scenario,
      seed: scenario.seed,
      stop: { reason: stopReason, events: events.length, timeUs: Math.max(stoppedAtUs ?? 0, events[events.length - 1]?.timeUs ?? 0) },
      events,
      verdict: check(events),
    };
    if (partial) doc.partial = true;
    return doc;
  };

  const unhook = janitor.onInterrupt(() => {
    partial = true;
    for (const c of children) if (!c.exited && c.proc.pid !== undefined) signalGroup(c.proc.pid, 'SIGKILL');
    opts.onInterrupt?.(build());
  });
  try {
    // Servers: the ones given, or throwaway ones of our own.
    const urls = new Map<string, string>();
    if (opts.urls !== undefined && opts.urls.size > 0) {
      for (const n of needs) {
        const url = opts.urls.get(n.node) ?? opts.urls.get(n.server);
        if (url === undefined)
          throw new UnsupportedScenarioError(
            `store node ${n.node}`,
            `no URL given for it (give one for every ${n.server} node, or none to let Locklab start them)`,
          );
        urls.set(n.node, url);
      }
      // What the run would write is looked for first: reaching a lock table's server creates the table.
      const footprints = footprintsOf(scenario, urls, library);
      await checkFootprintsFree(footprints);
      leaveAsFound = () => removeFootprints(footprints);
      await reachAll(needs, urls);
    } else {
      opts.progress?.(`starting ${needs.map((n) => `${n.server} ${n.node}`).join(', ')}`);
      const started = await Promise.all(needs.map((n) => startServer(harness, n)));
      needs.forEach((n, i) => {
        urls.set(n.node, started[i]!.url);
        servers.set(n.node, started[i]!);
      });
    }
    await prepare(scenario, needs, urls);

    const resource = new RealResource(scenario, clock, machines, emit);
    observer = new TruthObserver(needs, urls, clock, machines, new Map(scenario.clients.map((c) => [c.name, c.machine])), emit, nodeGroups(scenario));
    await observer.open();

    // One OS process per client, each its own process group (a SIGSTOP stops PHP with it).
    opts.progress?.(`starting ${scenario.clients.length} client processes (${library})`);
    const entry = await childEntry();
    const readies: Array<Promise<void>> = [];
    scenario.clients.forEach((spec, i) => {
      const proc = fork(entry.script, [], {
        execArgv: [...entry.execArgv],
        detached: true,
        stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      });
      proc.on('error', () => undefined);
      if (proc.pid !== undefined) janitor.trackGroup(proc.pid, process.execPath);
      const child: Child = {
        name: spec.name,
        machine: spec.machine,
        key: spec.key,
        proc,
        exited: false,
        done: false,
        belief: { holds: false },
        beliefLocalUs: 0,
        lastKind: 'starting',
        failure: undefined,
      };
      children.push(child);
      readies.push(
        new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`client ${spec.name} did not connect within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS);
          proc.on('message', (m: FromChild) => {
            switch (m.t) {
              case 'ready':
                clearTimeout(timer);
                resolve();
                return;
              case 'failed':
                clearTimeout(timer);
                child.failure = m.message;
                reject(new Error(`client ${spec.name}: ${m.message}`));
                return;
              case 'event':
                if (m.e.actor === spec.name && m.e.believes !== undefined) {
                  child.belief = m.e.believes;
                  child.beliefLocalUs = m.e.localUs ?? 0;
                }
                if (m.e.actor === spec.name) child.lastKind = m.e.kind;
                emit(m.e);
                return;
              case 'mark':
                rawMarks.push({ process: m.process, path: m.path, timeUs: m.timeUs, after: raw.length });
                return;
              case 'write': {
                const reply = resource.write(spec.name, spec.machine, m.request as WriteRequest, m.msg);
                tell(proc, { t: 'written', msg: m.msg, reply });
                return;
              }
              case 'done':
                child.done = true;
                return;
            }
          });
          proc.on('exit', () => {
            child.exited = true;
            if (proc.pid !== undefined) janitor.untrackGroup(proc.pid);
            clearTimeout(timer);
            reject(new Error(`client ${spec.name} exited before the run began`));
          });
        }),
      );
      tell(proc, {
        t: 'setup',
        scenario,
        client: spec.name,
        library,
        urls: Object.fromEntries(urls),
        msgBase: (i + 1) * 1_000_000,
        marks: opts.marks !== undefined,
      });
    });
    await Promise.all(readies);

    // A store down from time 0 is stopped before the clock starts. A timer at 0 could fire after a client's first request on a busy
    // machine (once 177 ms late, with the first client due at 100 ms), and the run would tell another story than the simulation's.
    const downFromStart = scenario.faults.flatMap((f, index) => (f.kind === 'store-restart' && f.atMs === 0 && servers.has(f.target) ? [{ f, index }] : []));
    await Promise.all(downFromStart.map(({ f }) => servers.get(f.target)!.kill()));

    // Time 0.
    const originNs = process.hrtime.bigint() + BigInt(LEAD_MS) * 1_000_000n;
    clock.setOrigin(originNs);
    for (const c of children) tell(c.proc, { t: 'start', originNs: originNs.toString() });
    // A fault runs at its time unless the run is over; the run waits for those under way before it cleans up.
    const at = (ms: number, f: () => void | Promise<void>): void => {
      timers.push(
        setTimeout(
          () => {
            if (closed) return;
            const p = Promise.resolve()
              .then(f)
              .catch((err: unknown) => {
                faultErrors.push(err instanceof Error ? err.message : String(err));
              });
            inFlight.add(p);
            void p.finally(() => inFlight.delete(p));
          },
          // By the run's clock, rounded up: a fault never fires before its time.
          Math.max(0, Math.ceil(ms - clock.nowUs() / 1000)),
        ),
      );
    };
    const clientEvent = (c: Child, kind: string, data?: Record<string, number>): void => {
      const now = clock.nowUs();
      const local = machines.get(c.machine)!.read(now);
      // What the client believes now: its last report, with the lease run down by its own clock since.
      const b = c.belief;
      const believes = b.ttlLeftUs === undefined ? b : { ...b, ttlLeftUs: b.ttlLeftUs - (local - c.beliefLocalUs) };
      const e = { timeUs: now, kind, actor: c.name, machine: c.machine, localUs: local, key: c.key, believes, data };
      // What the progress line shows it doing: paused, crashed, resumed, as the runner made it.
      c.lastKind = kind;
      emit(JSON.parse(JSON.stringify(e)) as RawEvent);
    };
    const faultEvent = (kind: string, machine: string, data: Record<string, unknown>, local = false): void => {
      const now = clock.nowUs();
      const e = { timeUs: now, kind, actor: 'faults', machine, localUs: local ? machines.get(machine)?.read(now) : undefined, data };
      emit(JSON.parse(JSON.stringify(e)) as RawEvent);
    };
    const storeEvent = (node: string, kind: string, reason: string | undefined, data: Record<string, unknown>, now = clock.nowUs()): void => {
      const need = needs.find((n) => n.node === node)!;
      const e = { timeUs: now, kind, actor: node, machine: need.machine, localUs: machines.get(need.machine)?.read(now), reason, data };
      emit(JSON.parse(JSON.stringify(e)) as RawEvent);
    };

    scenario.faults.forEach((f, index) => {
      switch (f.kind) {
        case 'pause':
          at(f.atMs, () => {
            const c = children.find((x) => x.name === f.target);
            if (c === undefined || c.exited || c.proc.pid === undefined) return;
            clientEvent(c, 'process.pause', { durationUs: f.durationMs * 1000 });
            signalGroup(c.proc.pid, 'SIGSTOP');
            timers.push(
              setTimeout(() => {
                if (c.exited || closed) return;
                signalGroup(c.proc.pid!, 'SIGCONT');
                clientEvent(c, 'process.resume');
              }, f.durationMs),
            );
          });
          return;
        case 'crash':
          at(f.atMs, () => {
            const c = children.find((x) => x.name === f.target);
            if (c === undefined || c.exited || c.proc.pid === undefined) return;
            signalGroup(c.proc.pid, 'SIGKILL');
            c.belief = { holds: false };
            clientEvent(c, 'process.crash');
            // Killed, it says no more: from its crash on, it and the children it forked (processes of the same OS process) are on no line.
            const gone = new Set(rawMarks.filter((k) => k.process === c.name || k.process.startsWith(`${c.name}/`)).map((k) => k.process));
            for (const process of gone) rawMarks.push({ process, path: null, timeUs: clock.nowUs(), after: raw.length });
          });
          return;
        case 'store-restart': {
          const persistence = needs.find((n) => n.node === f.target)?.persistence ?? 'durable';
          const up = async (): Promise<void> => {
            if (closed) return;
            await servers.get(f.target)!.start();
            storeEvent(f.target, 'store.up', undefined, { fault: index });
          };
          if (downFromStart.some((d) => d.index === index)) {
            // Stopped already, before time 0 (see downFromStart): down from 0, up again at downMs.
            observer!.noteRestart(f.target, 0);
            storeEvent(f.target, 'store.down', 'restart', { fault: index, persistence }, 0);
            at(f.downMs, up);
            return;
          }
          at(f.atMs, async () => {
            const server = servers.get(f.target);
            if (server === undefined) return;
            observer!.noteRestart(f.target);
            storeEvent(f.target, 'store.down', 'restart', { fault: index, persistence });
            await server.kill();
            await new Promise((r) => setTimeout(r, f.downMs));
            await up();
          });
          return;
        }
        case 'connection-loss':
          at(f.atMs, async () => {
            for (const s of servers.values()) {
              if (s.kind !== 'postgres') continue;
              const pgServer = s as PostgresServer;
              for (const b of await pgServer.backends()) if (b.application === f.target) await pgServer.terminateBackend(b.pid);
            }
          });
          return;
        case 'clock-jump':
          at(f.atMs, () => {
            machines.get(f.machine)?.jump(clock.nowUs(), f.byMs * 1000);
            for (const n of needs) if (n.machine === f.machine) servers.get(n.node)?.stepClock(f.byMs);
            faultEvent('clock.jump', f.machine, { fault: index, byUs: f.byMs * 1000 }, true);
          });
          return;
        case 'partition':
          // Each client process applies the partition itself, by the run's clock; the runner records it.
          at(f.atMs, () => faultEvent('partition.start', 'net', { fault: index, groups: f.groups }));
          at(f.atMs + f.durationMs, () => faultEvent('partition.end', 'net', { fault: index, groups: f.groups }));
          return;
        default:
          return;
      }
    });

    // Wait for every client to end, the budget to run out, or an interrupt.
    const budgetMs = opts.maxTimeMs ?? scenario.budget.maxTimeMs;
    const startedAt = Date.now() + LEAD_MS;
    await new Promise<void>((resolve) => {
      const poll = setInterval(() => {
        const elapsedMs = Date.now() - startedAt;
        if (children.every((c) => c.exited)) {
          clearInterval(poll);
          resolve();
          return;
        }
        if (opts.signal?.aborted === true) {
          partial = true;
          clearInterval(poll);
          resolve();
          return;
        }
        if (elapsedMs > budgetMs) {
          stopReason = 'time-budget';
          stoppedAtUs = clock.nowUs();
          clearInterval(poll);
          resolve();
        }
      }, 20);
      const tick = setInterval(() => {
        if (children.every((c) => c.exited)) return clearInterval(tick);
        const s = ((Date.now() - startedAt) / 1000).toFixed(1);
        opts.progress?.(`${s} s  ${children.map((c) => `${c.name}: ${c.exited ? (c.done ? 'done' : 'gone') : c.lastKind}`).join('  ')}`);
      }, 1000);
      timers.push(tick);
    });
    if (!partial) await new Promise((r) => setTimeout(r, SETTLE_MS));
    const failed = children.find((c) => c.failure !== undefined);
    if (failed !== undefined) throw new Error(`client ${failed.name} failed: ${failed.failure}`);
    if (faultErrors.length > 0) throw new Error(`a fault could not be made real: ${faultErrors.join('; ')}`);
    return build();
  } finally {
    closed = true;
    unhook();
    for (const t of timers) clearTimeout(t);
    await Promise.all([...inFlight]);
    for (const c of children) {
      if (!c.exited && c.proc.pid !== undefined) {
        signalGroup(c.proc.pid, 'SIGCONT');
        signalGroup(c.proc.pid, 'SIGKILL');
      }
    }
    await observer?.close();
    await leaveAsFound?.();
    await harness.close();
  }
}
