import type { Caller, Endpoint } from './endpoint.js';
import type { Machine } from './machine.js';
import type { World } from './world.js';
import type { WriteReply, WriteRequest } from '../stores/protocol.js';

export type { WriteReply, WriteRequest } from '../stores/protocol.js';

/**
 * The protected storage. It records every write; with fencing on it rejects
 * a write whose token is lower than the highest it has accepted (or that
 * carries no token at all), as Kleppmann's storage service does.
 */
export class Resource implements Endpoint<WriteRequest, WriteReply> {
  readonly name = 'resource';
  readonly machine: Machine;
  private highestFence: number | null = null;
  private version = 0;

  constructor(
    private readonly world: World,
    machine: string,
    private readonly fencing: boolean,
  ) {
    this.machine = world.machine(machine);
  }

  isUp(): boolean {
    return true;
  }

  handle(req: WriteRequest, caller: Caller): WriteReply {
    if (this.fencing) {
      const reason =
        req.fence === undefined
          ? 'no fencing token'
          : this.highestFence !== null && req.fence < this.highestFence
            ? 'token lower than the highest seen'
            : undefined;
      if (reason !== undefined) {
        this.world.record('write.rejected', this.name, this.machine, {
          owner: req.owner,
          fence: req.fence,
          peer: caller.process,
          msg: caller.msg,
          reason,
          data: { highestFence: this.highestFence ?? -1 },
        });
        return { accepted: false, highestFence: this.highestFence };
      }
    }
    if (req.fence !== undefined && (this.highestFence === null || req.fence > this.highestFence)) this.highestFence = req.fence;
    this.version++;
    this.world.record('write.accepted', this.name, this.machine, {
      owner: req.owner,
      fence: req.fence,
      peer: caller.process,
      msg: caller.msg,
      data: { version: this.version },
    });
    return { accepted: true, highestFence: this.highestFence };
  }
}
