// The parts of node-redlock 4 (which ships no types) that the tests and the
// bench use: a lock on N independent Redis servers.
declare module 'redlock' {
  interface Lock {
    readonly resource: string;
    readonly value: string;
    readonly expiration: number;
    unlock(): Promise<void>;
    extend(ttl: number): Promise<Lock>;
  }
  interface Options {
    driftFactor?: number;
    retryCount?: number;
    retryDelay?: number;
    retryJitter?: number;
  }
  class Redlock {
    constructor(clients: readonly unknown[], options?: Options);
    lock(resource: string | string[], ttl: number): Promise<Lock>;
    quit(): Promise<void>;
    on(event: 'clientError', listener: (err: Error) => void): this;
    static LockError: new (...args: unknown[]) => Error;
  }
  export = Redlock;
}
