import { check } from '../check/checker.js';
import type { Scenario } from '../scenario/types.js';
import type { TraceEvent } from '../trace/types.js';
import type { Verdict } from '../check/verdict.js';
import type { WriteRequest } from '../world/resource.js';
import { ClientSession } from './client-session.js';
import { RealResource } from './resource.js';
import { RunClock } from './runtime/time.js';
import { machineClocks, type RawEvent } from './runtime/real-runtime.js';

/** Orders events by true time (ties keep their arrival order) and numbers them. */
export function numberEvents(raw: readonly RawEvent[]): TraceEvent[] {
  return (
    raw
      .map((e, i) => ({ e, i }))
      .sort((a, b) => a.e.timeUs - b.e.timeUs || a.i - b.i)
      // A timer can fire a few microseconds before the origin it was set for: nothing happens before time 0.
      .map(({ e }, seq) => ({ seq, ...e, timeUs: Math.max(0, e.timeUs) }) as TraceEvent)
  );
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
