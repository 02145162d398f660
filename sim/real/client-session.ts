import { Client } from '../clients/lifecycle.js';
import type { Scenario } from '../scenario/types.js';
import { storeKind } from '../stores/registry.js';
import { msToUs } from '../time.js';
import type { Endpoint } from '../world/endpoint.js';
import type { WriteReply, WriteRequest } from '../world/resource.js';
import { World } from '../world/world.js';
import type { RealNode } from './adapters/types.js';
import { nodeGroups, realNode, serverNeeds } from './nodes.js';
import type { RunClock } from './runtime/time.js';
import { RealWorld, type Forward, type RawEvent } from './runtime/world.js';

export interface ClientSessionOptions {
  readonly scenario: Scenario;
  readonly client: string;
  /** Server URL by store node name. */
  readonly urls: ReadonlyMap<string, string>;
  readonly clock: RunClock;
  readonly emit: (e: RawEvent) => void;
  /** Sends a write to the protected resource and returns its reply. */
  readonly forward: Forward;
  readonly msgBase: number;
  /** Partitions the runtime applies: whether requests from `machine` to `node` are cut now. */
  readonly cut?: (machine: string, node: string) => boolean;
  /** Overrides the adapters (tests; the Symfony driver). */
  readonly nodes?: ReadonlyMap<string, RealNode>;
}

/**
 * One scenario client ready to run on real servers: the simulation's own
 * `Client` lifecycle and its store's own driver, on the real-time runtime,
 * with this process's own connections to every store node. The store model
 * is built only for its driver: its simulated nodes are never called, every
 * request goes to the real node of the same name.
 */
export class ClientSession {
  readonly world: RealWorld;
  readonly nodes: ReadonlyMap<string, RealNode>;
  private readonly start_: () => Client;
  private lifecycle: Client | undefined;

  constructor(readonly opts: ClientSessionOptions) {
    const { scenario } = opts;
    const spec = scenario.clients.find((c) => c.name === opts.client);
    if (spec === undefined) throw new Error(`the scenario has no client named ${opts.client}`);
    const kind = storeKind(scenario.store.kind);
    if (kind === undefined) throw new Error(`no store kind ${scenario.store.kind}`);
    this.nodes =
      opts.nodes ??
      new Map(
        serverNeeds(scenario).map((need) => {
          const url = opts.urls.get(need.node);
          if (url === undefined) throw new Error(`no server URL for store node ${need.node}`);
          return [need.node, realNode(need, url, opts.client)];
        }),
      );
    this.world = new RealWorld({
      clock: opts.clock,
      seed: scenario.seed,
      nodes: this.nodes,
      forward: opts.forward,
      emit: opts.emit,
      msgBase: opts.msgBase,
      groups: nodeGroups(scenario),
      ...(opts.cut === undefined ? {} : { cut: opts.cut }),
    });
    // The driver is built on a simulated world of its own; only its endpoints' names are used.
    const model = new World(scenario.seed, { latencyMinUs: 0, latencyMaxUs: 0, distribution: 'uniform', loss: 0 });
    for (const m of scenario.machines) {
      model.addMachine(m.name, msToUs(m.clockOffsetMs), m.clockDriftPpm);
      this.world.addMachine(m.name, msToUs(m.clockOffsetMs), m.clockDriftPpm);
    }
    const store = kind.create(model, scenario.store, scenario);
    const resource: Endpoint<WriteRequest, WriteReply> = {
      name: 'resource',
      machine: model.machine(scenario.resource.machine),
      isUp: () => true,
      handle: () => {
        throw new Error('the resource is reached through the runtime');
      },
    };
    // The runtime offers the lifecycle and drivers what the simulated world offers them.
    this.start_ = () => new Client(this.world as unknown as World, spec, store.driver(spec), kind.capabilities, resource);
  }

  /** Starts the lifecycle: its script begins when the run's clock reaches the client's `startMs`. */
  start(): void {
    this.lifecycle ??= this.start_();
  }

  /**
   * Connects every node; fails within seconds naming the one that cannot be
   * reached — unless `downAllowed`, for a run that starts with a server down:
   * its node then keeps trying in the background, and requests are refused
   * until it is back.
   */
  async open(downAllowed = false): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.open().catch((err: unknown) => (downAllowed ? undefined : Promise.reject(err)))));
  }

  /** Resolves when the client's script has ended. */
  get done(): Promise<void> {
    return this.world.process(this.opts.client).done;
  }

  get name(): string {
    return this.opts.client;
  }

  async close(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.close()));
  }
}
