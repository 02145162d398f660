import { check } from './check/checker.js';
import { Client } from './clients/lifecycle.js';
import type { Scenario } from './scenario/types.js';
import { storeKind } from './stores/registry.js';
import { msToUs } from './time.js';
import { TRACE_SCHEMA, type TraceDocument } from './trace/types.js';
import { scheduleFaults, type SimClient } from './world/faults.js';
import { Resource } from './world/resource.js';
import { World } from './world/world.js';

/**
 * Runs a (normalized) scenario with a seed and returns its trace, judged.
 * The same scenario and seed always give the same trace, byte for byte.
 */
export function runScenario(scenario: Scenario, seed: number = scenario.seed): TraceDocument {
  const world = new World(seed, {
    latencyMinUs: msToUs(scenario.network.latencyMinMs),
    latencyMaxUs: msToUs(scenario.network.latencyMaxMs),
    distribution: scenario.network.distribution,
    loss: scenario.network.loss,
  });
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
    process.onResume = () => client.resumed();
    world.kernel.at(msToUs(spec.startMs), () => process.start(client.main()));
    clients.set(spec.name, { client, process });
  }
  scheduleFaults(world, scenario.faults, { clients, store });

  const stop = world.kernel.run({ maxEvents: scenario.budget.maxEvents, maxTimeUs: msToUs(scenario.budget.maxTimeMs) });
  const events = world.trace.events;
  return { schema: TRACE_SCHEMA, source: 'sim', scenario, seed, stop, events, verdict: check(events) };
}
