import type { Rng } from '../../sim/kernel/rng.js';
import type { CallResult, Effect, NodeRef, OutgoingCall, Script } from '../../sim/runtime/types.js';
import type { ClientIo, LockOp, LockReply, StoreNode } from '../../sim/stores/types.js';
import type { EventFields } from '../../sim/trace/recorder.js';
import { World, type Process } from '../../sim/world/world.js';

/** A client's side of a driver, with nothing of the lifecycle around it: requests, events and the client's clock. */
class HarnessIo implements ClientIo {
  constructor(
    readonly world: World,
    private readonly process: Process,
    readonly requestTimeoutUs: number,
  ) {}

  get client(): string {
    return this.process.name;
  }

  get machine(): string {
    return this.process.machine.name;
  }

  localNow(): number {
    return this.process.localNow();
  }

  emit(kind: string, fields: EventFields): void {
    this.world.record(kind, this.process.name, this.process.machine, fields);
  }

  newMsg(): number {
    return this.world.newMsg();
  }

  thread(script: Script<void>): void {
    this.process.thread(script);
  }

  send(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Effect {
    const msg = this.world.newMsg();
    this.emit(kind, { ...fields, peer: node.name, msg });
    return { k: 'call', to: node.name, request: op, timeoutLocalUs: timeoutLocalUs ?? this.requestTimeoutUs, msg };
  }

  *request(node: NodeRef, op: LockOp, kind: string, fields: EventFields, timeoutLocalUs?: number): Script<CallResult<LockReply>> {
    return (yield this.send(node, op, kind, fields, timeoutLocalUs)) as CallResult<LockReply>;
  }

  *requestAll(
    calls: ReadonlyArray<{ node: NodeRef; op: LockOp }>,
    kind: string,
    fields: EventFields,
    timeoutLocalUs?: number,
  ): Script<Array<CallResult<LockReply>>> {
    const out: OutgoingCall[] = calls.map((c) => {
      const msg = this.world.newMsg();
      this.emit(kind, { ...fields, peer: c.node.name, msg });
      return { to: c.node.name, request: c.op, timeoutLocalUs: timeoutLocalUs ?? this.requestTimeoutUs, msg };
    });
    return (yield { k: 'callAll', calls: out }) as Array<CallResult<LockReply>>;
  }

  rng(): Rng {
    return this.world.rng.stream(`client:${this.process.name}`);
  }
}

/**
 * A world of named machines (1 ms latency each way) in which a multi-node
 * store's driver runs as a client process at a chosen true time, so its
 * protocol can be tested without the lifecycle around it.
 */
export class QuorumHarness {
  readonly world = new World(1, { latencyMinUs: 1000, latencyMaxUs: 1000, loss: 0 });

  constructor(machines: readonly string[]) {
    for (const m of machines) this.world.addMachine(m, 0, 0);
  }

  /** Makes the store's nodes reachable by name, as a run does. */
  addNodes(nodes: ReadonlyMap<string, StoreNode>): void {
    for (const node of nodes.values()) this.world.addEndpoint(node);
  }

  /** Starts `script` as process `client` on `machine` at true time `atUs`; the box fills when it returns. */
  spawn<T>(client: string, machine: string, atUs: number, script: (io: ClientIo) => Script<T>, requestTimeoutUs = 50_000): { value?: T } {
    const box: { value?: T } = {};
    const world = this.world;
    world.spawn(
      client,
      world.machine(machine),
      function* (p: Process): Script<void> {
        box.value = yield* script(new HarnessIo(world, p, requestTimeoutUs));
      },
      atUs,
    );
    return box;
  }

  /** Runs every event up to and including true time `atUs`. */
  advance(atUs: number): void {
    if (this.world.nowUs < atUs) this.world.kernel.at(atUs, () => {});
    this.world.kernel.run({ maxEvents: 1_000_000, maxTimeUs: atUs });
  }

  events(kind: string, actor?: string) {
    return this.world.trace.events.filter((e) => e.kind === kind && (actor === undefined || e.actor === actor));
  }
}
