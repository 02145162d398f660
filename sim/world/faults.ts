import type { Client } from '../clients/lifecycle.js';
import { drawUs } from '../kernel/dist.js';
import type { ClientSpec, FaultSpec } from '../scenario/types.js';
import type { JsonValue } from '../trace/types.js';
import type { StoreInstance } from '../stores/types.js';
import { msToUs } from '../time.js';
import type { Process, World } from './world.js';

/** A client and the simulated process it runs in: faults stop or kill the process, and the client records it. */
export interface SimClient {
  readonly client: Client;
  readonly process: Process;
}

/** Everything a fault can be aimed at, by name. */
export interface FaultTargets {
  readonly clients: ReadonlyMap<string, SimClient>;
  readonly store: StoreInstance;
}

/**
 * Schedules the scenario's faults. Each is plain data; this turns it into
 * kernel events at the stated true times and records what happened.
 */
export function scheduleFaults(world: World, faults: readonly FaultSpec[], targets: FaultTargets): void {
  faults.forEach((f, index) => {
    const atUs = msToUs(f.atMs);
    world.kernel.at(atUs, () => inject(world, f, index, targets));
  });
}

function inject(world: World, f: FaultSpec, index: number, targets: FaultTargets): void {
  switch (f.kind) {
    case 'pause':
    case 'crash': {
      const c = targets.clients.get(f.target);
      // A process that has ended cannot stop or die again: said in the trace, since the fault was asked for and nothing shows for it.
      if (c !== undefined && !c.process.alive) {
        const why = c.process.crashed ? 'crashed' : 'finished';
        world.recordGlobal('fault.missed', 'faults', c.process.machine.name, { data: { fault: index, what: f.kind, target: f.target, why } });
      } else if (f.kind === 'pause') pause(c, msToUs(f.durationMs));
      else crash(c);
      return;
    }
    case 'store-restart':
      targets.store.nodes.get(f.target)?.restart?.(msToUs(f.downMs));
      return;
    case 'deploy':
      world.recordGlobal('deploy.start', 'faults', 'net', { data: { fault: index, clients: f.clients, store: f.store as Record<string, JsonValue> } });
      for (const c of f.clients) targets.clients.get(c)?.client.reconfigure(f.store);
      return;
    case 'eviction':
    case 'memory-pressure':
    case 'session-expiry':
    case 'connection-loss':
    case 'ipc-removal':
    case 'lock-file-cleanup':
      // The scenario check let it through only for stores that list it.
      targets.store.fault?.(f, index);
      return;
    case 'partition': {
      const groups = f.groups;
      world.network.addPartition(index, f.groups);
      world.recordGlobal('partition.start', 'faults', 'net', { data: { fault: index, groups } });
      world.kernel.after(msToUs(f.durationMs), () => {
        world.network.removePartition(index);
        world.recordGlobal('partition.end', 'faults', 'net', { data: { fault: index, groups } });
      });
      return;
    }
    case 'clock-jump': {
      const m = world.machine(f.machine);
      const byUs = msToUs(f.byMs);
      m.clock.jump(world.nowUs, byUs);
      world.record('clock.jump', 'faults', m, { data: { fault: index, byUs } });
      m.clockChanged();
      return;
    }
    case 'clock-drift': {
      const m = world.machine(f.machine);
      m.clock.setDrift(world.nowUs, f.driftPpm);
      world.record('clock.drift', 'faults', m, { data: { fault: index, driftPpm: f.driftPpm } });
      m.clockChanged();
      return;
    }
    case 'latency-spike': {
      const extraUs = msToUs(f.extraMs);
      const machines = f.machines ?? undefined;
      world.network.addSpike(index, extraUs, machines);
      world.recordGlobal('latency.start', 'faults', 'net', { data: machines === undefined ? { fault: index, extraUs } : { fault: index, extraUs, machines } });
      world.kernel.after(msToUs(f.durationMs), () => {
        world.network.removeSpike(index);
        world.recordGlobal('latency.end', 'faults', 'net', { data: machines === undefined ? { fault: index } : { fault: index, machines } });
      });
      return;
    }
  }
}

/**
 * Random crashes: each client with a crash rate is killed once, after a time
 * drawn from an exponential distribution with that rate (its own stream).
 */
export function scheduleRandomCrashes(world: World, specs: readonly ClientSpec[], clients: ReadonlyMap<string, SimClient>): void {
  for (const spec of specs) {
    const rate = spec.crashRatePerS;
    if (rate === undefined || rate <= 0) continue;
    const atUs = msToUs(spec.startMs) + drawUs(world.rng.stream(`crash:${spec.name}`), { distribution: 'exponential', meanMs: 1000 / rate });
    world.kernel.at(atUs, () => crash(clients.get(spec.name)));
  }
}

/** A GC pause or SIGSTOP: recorded with what the client believes, then the process stops (a dead one is left alone). */
function pause(c: SimClient | undefined, durationUs: number): void {
  if (c === undefined || !c.process.alive) return;
  c.client.paused(durationUs);
  c.process.pause(durationUs);
}

function crash(c: SimClient | undefined): void {
  if (c === undefined || !c.process.alive) return;
  c.process.crash();
  c.client.crashed();
}
