import { boundedFor, Checker } from './check/checker.js';
import type { IntervalTracker } from './check/intervals.js';
import type { Verdict } from './check/verdict.js';
import { Client } from './clients/lifecycle.js';
import { shorthandStepsOf } from './clients/shorthand.js';
import { StepPaths, type StepMarker, type StepMarkSink } from './clients/step-marks.js';
import type { Scenario } from './scenario/types.js';
import type { Budget } from './kernel/kernel.js';
import { storeKind } from './stores/registry.js';
import { msToUs } from './time.js';
import { RunHasher } from './trace/hash.js';
import type { KeptTrace } from './trace/kept.js';
import { TRACE_SCHEMA, type StopInfo, type TraceDocument, type TraceEvent } from './trace/types.js';
import { scheduleFaults, scheduleRandomCrashes, type SimClient } from './world/faults.js';
import { Resource } from './world/resource.js';
import { World } from './world/world.js';

/** What a run job should give back besides its verdict. */
export interface JobWants {
  /** Keep every event (a trace to show or write); otherwise events are judged as they happen and dropped. */
  readonly trace?: boolean;
  /** Compute the run hash (default true); a sweep that only counts outcomes may skip it. */
  readonly hash?: boolean;
  /** Sees every event as it is recorded, after the checker: for measures of a run that are not findings (a sweep's lock-out time). */
  readonly observe?: (e: TraceEvent) => void;
  /**
   * At most this many kernel events, whatever the scenario's budget allows:
   * a run that keeps its trace is held to what memory can hold. It stops as
   * at the event budget.
   */
  readonly maxEvents?: number;
  /**
   * Judge in bounded memory (a run whose events are not kept, at any
   * length): the checker forgets an acquisition a while
   * after the last of it closed (see boundedFor), and lists at most SPANS_KEPT lock-out spans
   * per client. `intervals` then lists nothing but what is open.
   */
  readonly bounded?: boolean;
  /** Collects which step each process runs, event by event, beside the trace (the lab's code panel follows the playhead with it). */
  readonly marks?: StepMarkSink;
}

/** The result of one run: its fingerprint, its verdict, why it stopped, and its events when they were wanted. */
export interface JobResult {
  /** The run hash (sim/trace/hash.ts), or null when not wanted. */
  readonly runHash: string | null;
  readonly outcome: Verdict['outcome'];
  readonly verdict: Verdict;
  readonly stop: StopInfo;
  readonly eventCount: number;
  /** The events as objects, when kept: made from `trace` at the first read (see KeptTrace.toArray). */
  readonly events: readonly TraceEvent[] | undefined;
  /** The kept trace, in columns: read an event with `at(i)`, or iterate it, without making every event an object at once. */
  readonly trace: KeptTrace | undefined;
  /** The holding and belief intervals the checker derived. */
  readonly intervals: IntervalTracker;
}

/**
 * Runs a (normalized) scenario with a seed. The checker and the hasher read
 * each event as it is recorded, so a run whose trace is not wanted keeps no
 * events at all: this is what sweeps over many seeds call.
 */
export function runJob(scenario: Scenario, seed: number = scenario.seed, want: JobWants = {}): JobResult {
  const job = new JobRun(scenario, seed, want);
  return job.finish(job.world.kernel.run(job.budget));
}

/** A run job under way, run on a slice at a time (see startJob). */
export interface JobInProgress {
  /** Kernel events processed so far. */
  readonly events: number;
  /** Runs on for at most `events` more kernel events; returns why the run stopped, or undefined when it has not stopped yet. */
  advance(events: number): StopInfo | undefined;
  /** The run's result, once `advance` has returned why it stopped. */
  finish(stop: StopInfo): JobResult;
}

/**
 * Sets a run job up without running it: the caller runs it on in slices
 * (`advance`) and may do other things between them, such as see whether it
 * was interrupted. The slices make no difference to the run: its events,
 * trace and verdict are those of runJob.
 */
export function startJob(scenario: Scenario, seed: number = scenario.seed, want: JobWants = {}): JobInProgress {
  return new JobRun(scenario, seed, want);
}

/** A run job's world, checker and hasher, set up with its clients and faults scheduled; runJob runs it at once, startJob in slices. */
class JobRun implements JobInProgress {
  readonly world: World;
  readonly budget: Budget;
  private readonly checker: Checker;
  private readonly hasher: RunHasher | undefined;

  constructor(scenario: Scenario, seed: number, want: JobWants) {
    const world = new World(
      seed,
      {
        latencyMinUs: msToUs(scenario.network.latencyMinMs),
        latencyMaxUs: msToUs(scenario.network.latencyMaxMs),
        distribution: scenario.network.distribution,
        loss: scenario.network.loss,
      },
      want.trace === true,
    );
    this.world = world;
    const checker = new Checker(want.bounded === true ? boundedFor(scenario.network.latencyMaxMs) : {});
    this.checker = checker;
    const hasher = want.hash === false ? undefined : new RunHasher({ schema: TRACE_SCHEMA, source: 'sim', scenario, seed });
    this.hasher = hasher;
    const observe = want.observe;
    world.trace.onEvent =
      hasher === undefined && observe === undefined
        ? (e) => checker.push(e)
        : (e) => {
            checker.push(e);
            hasher?.push(e);
            observe?.(e);
          };
    for (const m of scenario.machines) world.addMachine(m.name, msToUs(m.clockOffsetMs), m.clockDriftPpm);

    const kind = storeKind(scenario.store.kind);
    if (kind === undefined) throw new Error(`no store kind ${scenario.store.kind}: normalize the scenario first`);
    const store = kind.create(world, scenario.store, scenario);
    for (const node of store.nodes.values()) world.addEndpoint(node);
    const resource = new Resource(world, scenario.resource.machine, scenario.resource.fencing);
    world.addEndpoint(resource);
    const clients = new Map<string, SimClient>();
    for (const spec of scenario.clients) {
      const process = world.addProcess(spec.name, world.machine(spec.machine));
      const client = new Client(process.runtime(), spec, kind.driver(scenario.store, spec, scenario), kind.capabilities, resource);
      const marker = want.marks;
      if (marker !== undefined) {
        const paths = new StepPaths(spec.steps ?? shorthandStepsOf(spec, kind.capabilities));
        client.onStep = (c, step, phase) => marker.mark(c.name, paths.at(step, phase), world.trace.count);
      }
      process.onResume = () => client.resumed();
      world.kernel.at(msToUs(spec.startMs), () => process.start(client.main()));
      clients.set(spec.name, { client, process });
    }
    scheduleFaults(world, scenario.faults, { clients, store });
    scheduleRandomCrashes(world, scenario.clients, clients);

    const maxEvents = want.maxEvents === undefined ? scenario.budget.maxEvents : Math.min(want.maxEvents, scenario.budget.maxEvents);
    this.budget = { maxEvents, maxTimeUs: msToUs(scenario.budget.maxTimeMs) };
  }

  get events(): number {
    return this.world.kernel.eventsProcessed;
  }

  advance(events: number): StopInfo | undefined {
    const kernel = this.world.kernel;
    const sliceEnd = kernel.eventsProcessed + events;
    if (sliceEnd >= this.budget.maxEvents) return kernel.run(this.budget);
    const stop = kernel.run({ maxEvents: sliceEnd, maxTimeUs: this.budget.maxTimeUs });
    // Stopped at the slice's end, not the run's: the next slice goes on from the same event.
    return stop.reason === 'event-budget' ? undefined : stop;
  }

  finish(stop: StopInfo): JobResult {
    const verdict = this.checker.finish();
    return new Job(this.hasher?.digest() ?? null, verdict, stop, this.world.trace.count, this.world.trace.kept, this.checker.intervals);
  }
}

/**
 * A JobResult whose events are made from its kept trace when first read. A
 * class, not an object literal with a getter: V8 makes such a literal by a
 * call into its runtime, as a dictionary, and with one per run what it held
 * (the verdict, the checker's intervals) outlived the young generation: a
 * sweep's runs went five times slower, their scavenges taking 20 ms, not 0.3.
 */
class Job implements JobResult {
  readonly outcome: Verdict['outcome'];

  constructor(
    readonly runHash: string | null,
    readonly verdict: Verdict,
    readonly stop: StopInfo,
    readonly eventCount: number,
    readonly trace: KeptTrace | undefined,
    readonly intervals: IntervalTracker,
  ) {
    this.outcome = verdict.outcome;
  }

  get events(): readonly TraceEvent[] | undefined {
    return this.trace?.toArray();
  }
}

/**
 * Runs a (normalized) scenario with a seed and returns its trace, judged.
 * The same scenario and seed always give the same trace, byte for byte.
 */
export function runScenario(scenario: Scenario, seed: number = scenario.seed, marks?: StepMarker): TraceDocument {
  const r = runJob(scenario, seed, marks === undefined ? { trace: true, hash: false } : { trace: true, hash: false, marks });
  return { schema: TRACE_SCHEMA, source: 'sim', scenario, seed, stop: r.stop, events: r.events as TraceEvent[], verdict: r.verdict };
}
