import { check } from '../check/checker.js';
import type { StepMarkSink } from '../clients/step-marks.js';
import type { Scenario } from '../scenario/types.js';
import type { TraceEvent } from '../trace/types.js';
import type { Verdict } from '../check/verdict.js';
import type { WriteRequest } from '../world/resource.js';
import { ClientSession } from './client-session.js';
import { RealResource } from './resource.js';
import { RunClock } from './runtime/time.js';
import { machineClocks, type RawEvent } from './runtime/real-runtime.js';

/**
 * A step mark a client process sent during a real run: from `timeUs` (the
 * run's clock) on, `process` runs the step at `path`. `after` is how many
 * events had arrived before it, which places it among events of the same
 * microsecond as `numberEvents` orders them.
 */
export interface RawMark {
  readonly process: string;
  readonly path: string | null;
  readonly timeUs: number;
  readonly after: number;
}

/**
 * Gives each mark the seq of the first event ordered after it (as the
 * simulation marks a step with the seq of the next event recorded), and
 * hands them to `sink` in seq order, ties in the order they arrived. `raw`
 * is every event, in arrival order, as `numberEvents` takes it.
 */
export function numberMarks(raw: readonly RawEvent[], marks: readonly RawMark[], sink: StepMarkSink): void {
  const order = byTime(raw);
  const seqOf = (m: RawMark): number => {
    let lo = 0;
    let hi = order.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const i = order[mid]!;
      const t = raw[i]!.timeUs;
      if (t < m.timeUs || (t === m.timeUs && i < m.after)) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const numbered = marks.map((m, k) => ({ m, k, seq: seqOf(m) })).sort((a, b) => a.seq - b.seq || a.k - b.k);
  for (const { m, seq } of numbered) sink.mark(m.process, m.path, seq);
}

/** The events' places in arrival order, sorted by true time, ties by arrival: the order a real run's trace takes. */
function byTime(raw: readonly RawEvent[]): number[] {
  return raw.map((_, i) => i).sort((a, b) => raw[a]!.timeUs - raw[b]!.timeUs || a - b);
}

/** Orders events by true time (ties keep their arrival order) and numbers them. */
export function numberEvents(raw: readonly RawEvent[]): TraceEvent[] {
  // A timer can fire a few microseconds before the origin it was set for: nothing happens before time 0.
  return byTime(raw).map((i, seq) => ({ seq, ...raw[i]!, timeUs: Math.max(0, raw[i]!.timeUs) }) as TraceEvent);
}

/**
 * Runs every client of a scenario in this one process against real servers,
 * with no process faults: the lock code is the simulation's, the servers are
 * real. (The OS-process runner adds real pauses and crashes.)
 */
export async function runInProcess(
  scenario: Scenario,
  urls: ReadonlyMap<string, string>,
  opts: { downAllowed?: boolean } = {},
): Promise<{ events: TraceEvent[]; verdict: Verdict }> {
  const raw: RawEvent[] = [];
  const emit = (e: RawEvent): void => void raw.push(e);
  const clock = new RunClock(process.hrtime.bigint());
  const machines = machineClocks(scenario.machines);
  const resource = new RealResource(scenario, clock, machines, emit);
  const sessions = scenario.clients.map(
    (c, i) =>
      new ClientSession({
        scenario,
        client: c.name,
        urls,
        clock,
        machines,
        emit,
        msgBase: (i + 1) * 1_000_000,
        forward: async (_to, request, msg) => resource.write(c.name, c.machine, request as WriteRequest, msg),
      }),
  );
  try {
    await Promise.all(sessions.map((s) => s.open(opts.downAllowed === true)));
    // Time 0 is now: every client is connected.
    clock.setOrigin(process.hrtime.bigint());
    await Promise.all(sessions.map((s) => s.run()));
    const events = numberEvents(raw);
    return { events, verdict: check(events) };
  } finally {
    await Promise.all(sessions.map((s) => s.close()));
  }
}
