import { msToUs } from '../time.js';
import type { Scenario } from '../scenario/types.js';
import { Resource, type WriteReply, type WriteRequest } from '../world/resource.js';
import type { World } from '../world/world.js';
import type { RunClock } from './runtime/time.js';
import { RealWorld, type RawEvent } from './runtime/world.js';

/**
 * The protected resource of a real run: the simulation's own `Resource`
 * (which checks fencing tokens when the scenario says so), living in the
 * runner and stamped with the run's clock. Clients reach it by message.
 */
export class RealResource {
  private readonly resource: Resource;

  constructor(scenario: Scenario, clock: RunClock, emit: (e: RawEvent) => void) {
    const world = new RealWorld({
      clock,
      seed: scenario.seed,
      nodes: new Map(),
      forward: () => Promise.reject(new Error('the resource calls no one')),
      emit,
      msgBase: 0,
    });
    for (const m of scenario.machines) world.addMachine(m.name, msToUs(m.clockOffsetMs), m.clockDriftPpm);
    this.resource = new Resource(world as unknown as World, scenario.resource.machine, scenario.resource.fencing);
  }

  write(client: string, machine: string, request: WriteRequest, msg: number): WriteReply {
    return this.resource.handle(request, { process: client, machine, msg, respond: () => undefined });
  }
}
