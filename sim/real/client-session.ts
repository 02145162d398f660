import { Client } from '../clients/lifecycle.js';
import type { Scenario } from '../scenario/types.js';
import { storeKind } from '../stores/registry.js';
import type { RealNode } from './adapters/types.js';
import type { ClientLibrary } from './ipc.js';
import { SymfonyDriver, symfonyNodes } from './symfony/node.js';
import { nodeGroups, realNode, serverNeeds } from './nodes.js';
import { RealRuntime, type Forward, type MachineClocks, type RawEvent } from './runtime/real-runtime.js';
import type { RunClock } from './runtime/time.js';

export interface ClientSessionOptions {
  readonly scenario: Scenario;
  readonly client: string;
  /** Server URL by store node name. */
  readonly urls: ReadonlyMap<string, string>;
  readonly clock: RunClock;
  readonly machines: MachineClocks;
  readonly emit: (e: RawEvent) => void;
  /** Sends a write to the protected resource and returns its reply. */
  readonly forward: Forward;
  readonly msgBase: number;
  /** Partitions the runtime applies: whether requests from `machine` to `node` are cut now. */
  readonly cut?: (machine: string, node: string) => boolean;
  /** The simulation's lock code (node), or the real Symfony Lock through the PHP driver. */
  readonly library?: ClientLibrary;
}

/**
 * One scenario client ready to run on real servers: the simulation's own
 * `Client` lifecycle with its store kind's own driver, on the real-time
 * runtime, with this process's own connections to every store node.
 */
export class ClientSession {
  readonly runtime: RealRuntime;
  readonly nodes: ReadonlyMap<string, RealNode>;
  readonly client: Client;
  private finished: Promise<void> | undefined;

  constructor(readonly opts: ClientSessionOptions) {
    const { scenario } = opts;
    const spec = scenario.clients.find((c) => c.name === opts.client);
    if (spec === undefined) throw new Error(`the scenario has no client named ${opts.client}`);
    const kind = storeKind(scenario.store.kind);
    if (kind === undefined) throw new Error(`no store kind ${scenario.store.kind}`);
    const needs = serverNeeds(scenario);
    const symfony = opts.library === 'symfony';
    this.nodes = symfony
      ? symfonyNodes(scenario, spec, opts.urls)
      : new Map(
          needs.map((need) => {
            const url = opts.urls.get(need.node);
            if (url === undefined) throw new Error(`no server URL for store node ${need.node}`);
            return [need.node, realNode(need, url, opts.client)];
          }),
        );
    this.runtime = new RealRuntime({
      process: spec.name,
      machine: spec.machine,
      clock: opts.clock,
      machines: opts.machines,
      seed: scenario.seed,
      nodes: this.nodes,
      nodeMachines: new Map([...needs.map((n) => [n.node, n.machine] as const), [scenario.store.name, needs[0]?.machine ?? spec.machine] as const]),
      forward: opts.forward,
      emit: opts.emit,
      msgBase: opts.msgBase,
      groups: nodeGroups(scenario),
      ...(opts.cut === undefined ? {} : { cut: opts.cut }),
    });
    const own = kind.driver(scenario.store, spec, scenario);
    // Symfony's driver names the same store class and client-library exception as the store's own driver.
    const driver = symfony ? new SymfonyDriver(scenario.store.name, kind.capabilities.expiring, own.library) : own;
    this.client = new Client(this.runtime, spec, driver, kind.capabilities, { name: 'resource' });
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

  /** Starts the lifecycle when the run's clock reaches the client's `startMs`; resolves when its script has ended. */
  run(): Promise<void> {
    const startUs = Math.round(this.opts.scenario.clients.find((c) => c.name === this.opts.client)!.startMs * 1000);
    this.finished ??= this.opts.clock.until(startUs).then(() => this.runtime.main(this.client.main()));
    return this.finished;
  }

  async close(): Promise<void> {
    await Promise.all([...this.nodes.values()].map((n) => n.close()));
  }
}
