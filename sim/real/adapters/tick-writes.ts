import type { Socket } from 'node:net';

/**
 * Sends every command issued on a connection within one tick of the event
 * loop in a single write. ioredis and memcached write each command to the
 * socket on its own (one system call each, and one read each on the
 * server); ioredis' auto-pipelining batches them, but waits for a batch's
 * replies before it sends the next, so client and server take turns and
 * neither runs while the other does. Corking the socket until the tick's
 * callbacks have run gives the same single write per batch with any number
 * of batches in flight. Order on the connection is unchanged; a lone
 * command waits only for the current tick to finish.
 */
export class TickWrites {
  private held = false;

  /** `socket` finds the connection's socket now (a reconnect replaces it); undefined while there is none. */
  constructor(private readonly socket: () => Socket | undefined) {}

  /** Call before issuing a command: holds this tick's writes back until the tick ends. */
  hold(): void {
    if (this.held) return;
    const socket = this.socket();
    // With no open socket there is nothing to hold: the client refuses or queues the command itself.
    if (socket === undefined || !socket.writable) return;
    this.held = true;
    socket.cork();
    process.nextTick(() => {
      this.held = false;
      socket.uncork();
    });
  }
}
