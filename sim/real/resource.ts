import type { Scenario } from '../scenario/types.js';
import type { EventFields } from '../trace/recorder.js';
import type { LocalClock } from '../world/clock.js';
import { Resource, type WriteReply, type WriteRequest } from '../world/resource.js';
import type { World } from '../world/world.js';
import type { RawEvent } from './runtime/real-runtime.js';
import type { RunClock } from './runtime/time.js';

/**
 * The protected resource of a real run: the simulation's own `Resource`
 * (which checks fencing tokens when the scenario says so), living in the
 * runner, its events stamped with the run's clock. Clients reach it by
 * message.
 */
export class RealResource {
  private readonly resource: Resource;

  constructor(scenario: Scenario, clock: RunClock, clocks: ReadonlyMap<string, LocalClock>, emit: (e: RawEvent) => void) {
    // The resource asks its world for two things only: its machine, and to record what it did.
    const world = {
      machine: (name: string) => ({ name, clock: clocks.get(name)! }),
      record: (kind: string, actor: string, machine: { name: string; clock: LocalClock }, f: EventFields) => {
        const now = clock.nowUs();
        const e = {
          timeUs: now,
          kind,
          actor,
          machine: machine.name,
          localUs: machine.clock.read(now),
          key: f.key,
          owner: f.owner,
          fence: f.fence,
          peer: f.peer,
          msg: f.msg,
          reason: f.reason,
          data: f.data,
        };
        emit(JSON.parse(JSON.stringify(e)) as RawEvent);
      },
    };
    this.resource = new Resource(world as unknown as World, scenario.resource.machine, scenario.resource.fencing);
  }

  write(client: string, machine: string, request: WriteRequest, msg: number): WriteReply {
    return this.resource.handle(request, { process: client, machine, msg, respond: () => undefined });
  }
}
