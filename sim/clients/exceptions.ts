/*
 * The exceptions a PHP script sees from Symfony Lock 5.4, as the client
 * raises them. Each is recorded as an `exception.*` event named after its
 * root cause, with the class the script catches (`thrown`) and the whole
 * chain of previous exceptions, outermost first, as Symfony builds it: for
 * instance a lease that ran out while `acquire()` was in flight is a
 * LockAcquiringException ("Failed to acquire") whose previous is a
 * LockAcquiringException ("Failed to define an expiration") whose previous
 * is the LockExpiredException the store threw.
 */

/** What went wrong, as the event kind names it. */
export type ExceptionKind =
  | 'exception.conflicted'
  | 'exception.expired'
  | 'exception.acquiring'
  | 'exception.releasing'
  | 'exception.invalid-ttl'
  | 'exception.store'
  | 'exception.unsupported'
  | 'exception.resource'
  | 'exception.user';

/** Short names of the classes in Symfony\Component\Lock\Exception, as the trace records them. */
export const LOCK_CONFLICTED = 'LockConflictedException';
export const LOCK_EXPIRED = 'LockExpiredException';
export const LOCK_ACQUIRING = 'LockAcquiringException';
export const LOCK_RELEASING = 'LockReleasingException';
export const INVALID_TTL = 'InvalidTtlException';

/**
 * An exception thrown inside a client's script: JavaScript's own throw
 * carries it through the generators, as PHP's does through the calls. It
 * is the simulated PHP exception, always caught by the step runner, so it
 * records no JavaScript stack: capturing one took most of a short run that
 * throws (postgres-connection-loss throws two).
 */
export class ScriptException extends Error {
  readonly kind: ExceptionKind;
  /** The Lock method (or step) that threw: acquire, refresh, release, isAcquired, write, throw. */
  readonly method: string;
  /** The classes, outermost (what a catch block sees) first. */
  readonly chain: readonly string[];

  constructor(kind: ExceptionKind, method: string, chain: readonly string[], message: string) {
    // V8's limit (other engines ignore it): the core's ECMAScript types do not name it.
    const engine = Error as { stackTraceLimit?: number | undefined };
    const limit = engine.stackTraceLimit;
    engine.stackTraceLimit = 0;
    try {
      super(message);
    } finally {
      engine.stackTraceLimit = limit;
    }
    this.kind = kind;
    this.method = method;
    this.chain = chain;
  }

  get thrown(): string {
    return this.chain[0]!;
  }
}
