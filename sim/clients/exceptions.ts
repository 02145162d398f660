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
 * An exception thrown inside a client's script (with `fail`, which carries
 * it through the generators as PHP's throw does through the calls). It is
 * the simulated PHP exception, always caught by the step runner, so it is
 * no JavaScript Error: making one, even without its stack, took a large part
 * of a short run that throws (postgres-connection-loss throws two).
 */
export class ScriptException {
  readonly kind: ExceptionKind;
  /** The Lock method (or step) that threw: acquire, refresh, release, isAcquired, write, throw. */
  readonly method: string;
  /** The classes, outermost (what a catch block sees) first. */
  readonly chain: readonly string[];
  /** The outermost exception's message, as PHP's getMessage() gives it. */
  readonly message: string;

  constructor(kind: ExceptionKind, method: string, chain: readonly string[], message: string) {
    this.kind = kind;
    this.method = method;
    this.chain = chain;
    this.message = message;
  }

  get thrown(): string {
    return this.chain[0]!;
  }
}
