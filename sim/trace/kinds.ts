/**
 * Every kind of trace event, as data: who records it, which fields it always
 * carries and of what type, what it means for holdings and beliefs, how it is
 * drawn, and — for a client-visible failure — whether the operation
 * definitely did not happen or may have happened. The trace schema
 * (docs/schema/trace.schema.json), the checker's interval derivation, the
 * lab's colours and docs/trace.md all read this one table.
 */

/** Who records an event: a client process, a store node, the resource, the network, or the fault injector. */
export type ActorClass = 'client' | 'store' | 'resource' | 'net' | 'faults';

/** How an event is drawn and coloured: what kind of thing happened. */
export type EventTone = 'request' | 'belief-gain' | 'belief-loss' | 'truth' | 'truth-loss' | 'fault' | 'write-ok' | 'write-bad' | 'info';

/** The optional top-level fields an event kind may require. */
export type EventField = 'localUs' | 'key' | 'owner' | 'fence' | 'ttlUs' | 'peer' | 'msg' | 'reason' | 'believes';

/** JSON types of `data` fields. */
export type DataType = 'integer' | 'number' | 'string' | 'boolean' | 'string[]' | 'string[][]' | 'object';

/** How a holding ends, for store events that end one. */
export type HoldingEnd = 'released' | 'expired' | 'deleted' | 'overwritten' | 'lost';

export interface KindSpec {
  readonly actor: ActorClass;
  /** Top-level fields every event of this kind carries, besides seq, timeUs, kind, actor and machine. */
  readonly required: readonly EventField[];
  /** Fields of `data` every event of this kind carries. */
  readonly data?: Readonly<Record<string, DataType>>;
  /** Store events: the node grants the owner the key (a holding starts, on this node). */
  readonly startsHolding?: true;
  /** Store events: the owner's holding of the key ends on this node, and how. */
  readonly endsHolding?: HoldingEnd;
  /** Client events after which the client no longer believes it holds the lock. */
  readonly endsBelief?: true;
  /** Client-visible failures: `definite` did not happen; `maybe` may have happened (no answer came). */
  readonly failure?: 'definite' | 'maybe';
  readonly tone: EventTone;
  /** One sentence for docs/trace.md. */
  readonly doc: string;
}

const CLIENT: readonly EventField[] = ['localUs', 'key', 'believes'];
const REQUEST: readonly EventField[] = [...CLIENT, 'owner', 'peer', 'msg'];
const REPLY: readonly EventField[] = [...CLIENT, 'owner', 'msg'];

/**
 * One kind per exception a script sees, named after its root cause: data
 * says which method threw, the class a catch block sees (`thrown`) and the
 * whole chain of previous exceptions, outermost first; `reason` is the
 * message.
 */
const EXCEPTION = (doc: string, endsBelief = false): KindSpec => ({
  actor: 'client',
  required: [...CLIENT, 'reason'],
  data: { method: 'string', thrown: 'string', chain: 'string[]' },
  ...(endsBelief ? { endsBelief: true } : {}),
  tone: endsBelief ? 'belief-loss' : 'fault',
  doc,
});

const EXCEPTIONS = {
  'exception.conflicted': EXCEPTION('LockConflictedException: refresh() found the key held by someone else, or gone.', true),
  'exception.expired': EXCEPTION(
    'LockExpiredException (inside LockAcquiringException): the lease ran out by the client’s clock while acquire() or refresh() was in flight; Symfony deleted the key first.',
    true,
  ),
  'exception.acquiring': EXCEPTION(
    'LockAcquiringException: acquire() or refresh() could not reach the store, or the store failed (the store’s own exception inside).',
  ),
  'exception.releasing': EXCEPTION('LockReleasingException: release() could not reach the store, or the store failed.'),
  'exception.invalid-ttl': EXCEPTION(
    'InvalidTtlException (inside LockAcquiringException): the store refuses a TTL under 1 s (Memcached, PdoStore); from acquire(), after the key was saved with the store’s initial TTL.',
  ),
  'exception.store': EXCEPTION('The store’s own exception, which isAcquired() lets through (RedisException, PDOException...).'),
  'exception.unsupported': EXCEPTION(
    'An Error: the script called what the store does not have (waitAndSave() on a store that cannot block); Symfony 5.4 raises no NotSupportedException any more.',
  ),
  'exception.resource': EXCEPTION('The protected resource refused the write (fenced) or did not answer.'),
  'exception.user': EXCEPTION('The script itself threw, inside the critical section (the throw step).'),
} as const satisfies Readonly<Record<string, KindSpec>>;

export const EVENT_KINDS = {
  'client.start': { actor: 'client', required: CLIENT, tone: 'info', doc: 'The client process starts.' },
  'client.done': {
    actor: 'client',
    required: CLIENT,
    endsBelief: true,
    tone: 'info',
    doc: 'The client finished its script (reason: the exception nobody caught, if one ended it); its process exits.',
  },
  'exists.request': { actor: 'client', required: REQUEST, tone: 'request', doc: 'Asks whether the key is free (the first half of exists-then-set).' },
  'exists.reply': { actor: 'client', required: REPLY, data: { free: 'boolean' }, tone: 'info', doc: 'Hears whether the key was free.' },
  'acquire.request': { actor: 'client', required: REQUEST, tone: 'request', doc: 'Asks a store node for the lock.' },
  'acquire.ok': { actor: 'client', required: REPLY, tone: 'belief-gain', doc: 'Hears the lock is granted: from now on it believes it holds it.' },
  'acquire.denied': { actor: 'client', required: REPLY, tone: 'info', doc: 'Hears the lock is held by someone else.' },
  'acquire.timeout': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    failure: 'maybe',
    tone: 'info',
    doc: 'Hears nothing in time: the lock may or may not have been set.',
  },
  'acquire.error': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    failure: 'definite',
    tone: 'info',
    doc: 'Cannot reach the store, or the store refused the request.',
  },
  'acquire.giveup': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    data: { attempts: 'integer' },
    tone: 'belief-loss',
    doc: 'Stops trying to acquire.',
  },
  'quorum.missed': {
    actor: 'client',
    required: [...CLIENT, 'owner', 'reason'],
    data: { granted: 'integer', of: 'integer', needed: 'integer', unit: 'string' },
    failure: 'definite',
    tone: 'info',
    doc: 'A quorum store (Redlock, Combined) got too few nodes, or got them too late, and releases what it got.',
  },
  'work.start': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    data: { workUs: 'integer' },
    tone: 'info',
    doc: 'Starts working inside the critical section.',
  },
  'refresh.request': { actor: 'client', required: REQUEST, tone: 'request', doc: 'Asks a store node to extend the lease.' },
  'refresh.ok': { actor: 'client', required: REPLY, tone: 'belief-gain', doc: 'Hears the lease was extended.' },
  'refresh.failed': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    endsBelief: true,
    failure: 'definite',
    tone: 'belief-loss',
    doc: 'Hears the lease could not be extended: it stops believing.',
  },
  'refresh.timeout': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    endsBelief: true,
    failure: 'maybe',
    tone: 'belief-loss',
    doc: 'Hears nothing about its refresh in time: it stops believing, though the lease may have been extended.',
  },
  'check.ok': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    tone: 'belief-gain',
    doc: 'isExpired() by its own clock: time is left (data.ttlLeftUs; absent for a lock that never expires).',
  },
  'check.expired': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    data: { ttlLeftUs: 'integer' },
    endsBelief: true,
    tone: 'belief-loss',
    doc: 'isExpired() by its own clock: the lease ran out, and the client knows it no longer holds the lock.',
  },
  'lifetime.read': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    tone: 'info',
    doc: 'getRemainingLifetime() by its own clock: data.remainingUs (absent: null, a lock that never expires).',
  },
  'isAcquired.request': { actor: 'client', required: REQUEST, tone: 'request', doc: 'isAcquired(): asks a store node whether it still holds our token.' },
  'isAcquired.yes': { actor: 'client', required: REPLY, tone: 'belief-gain', doc: 'isAcquired() is true: the store still holds our token.' },
  'isAcquired.no': {
    actor: 'client',
    required: REPLY,
    endsBelief: true,
    tone: 'belief-loss',
    doc: 'isAcquired() is false: the store no longer holds our token, and the client knows it.',
  },
  'sleep.start': { actor: 'client', required: CLIENT, data: { sleepUs: 'integer' }, tone: 'info', doc: 'usleep(): waits, doing no work.' },
  'write.request': { actor: 'client', required: REQUEST, tone: 'request', doc: 'Writes to the protected resource, with its fencing token if it has one.' },
  'write.done': { actor: 'client', required: REPLY, tone: 'info', doc: 'Hears its write was accepted.' },
  'write.refused': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    endsBelief: true,
    failure: 'definite',
    tone: 'belief-loss',
    doc: 'Hears its write was rejected by fencing: someone newer holds the lock.',
  },
  'write.timeout': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    failure: 'maybe',
    tone: 'info',
    doc: 'Hears nothing back from the resource: the write may have happened.',
  },
  'release.request': { actor: 'client', required: REQUEST, data: { method: 'string' }, tone: 'request', doc: 'Asks a store node to release the lock.' },
  'release.ok': { actor: 'client', required: REPLY, tone: 'info', doc: 'Hears the release succeeded.' },
  'release.failed': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    failure: 'definite',
    tone: 'info',
    doc: 'Hears the release failed (not the owner any more). Symfony never says so: its release() returns quietly (release.lost).',
  },
  'release.lost': {
    actor: 'client',
    required: REPLY,
    tone: 'info',
    doc: 'release() returns quietly: the key no longer held our token (the lock was lost), so nothing was deleted and nothing is thrown.',
  },
  'release.timeout': { actor: 'client', required: [...REPLY, 'reason'], failure: 'maybe', tone: 'info', doc: 'Hears nothing about its release in time.' },
  'release.error': {
    actor: 'client',
    required: [...REPLY, 'reason'],
    failure: 'definite',
    tone: 'info',
    doc: 'Cannot reach the store to release; or (data.stillLocked) the store refused the release, and exists() still finds our token.',
  },
  'release.skipped': {
    actor: 'client',
    required: [...CLIENT, 'owner', 'reason'],
    endsBelief: true,
    tone: 'belief-loss',
    doc: 'An error inside the critical section skipped the release (no finally).',
  },
  'autorelease.check': {
    actor: 'client',
    required: [...CLIENT, 'owner'],
    data: { why: 'string' },
    tone: 'info',
    doc: 'The Lock object is destroyed (data.why: the script ended, a new Lock replaced it, a forked child exited) with autoRelease on: it asks isAcquired() and releases if so.',
  },
  'process.fork': {
    actor: 'client',
    required: CLIENT,
    data: { child: 'string' },
    tone: 'fault',
    doc: 'pcntl_fork(): a child process (data.child) starts as a copy of this one, its Lock object included.',
  },
  ...EXCEPTIONS,
  'session.lost': {
    actor: 'client',
    required: [...CLIENT, 'peer', 'reason'],
    data: { what: 'string' },
    tone: 'fault',
    doc: 'Learns its session (connection, ZooKeeper session, etcd lease) is gone.',
  },
  'process.pause': { actor: 'client', required: CLIENT, data: { durationUs: 'integer' }, tone: 'fault', doc: 'The process stops (a GC pause, SIGSTOP).' },
  'process.resume': { actor: 'client', required: CLIENT, tone: 'fault', doc: 'The process runs again, unaware that time has passed.' },
  'process.crash': { actor: 'client', required: CLIENT, endsBelief: true, tone: 'fault', doc: 'The process is killed: whatever it believed dies with it.' },

  'lock.granted': {
    actor: 'store',
    required: ['localUs', 'key', 'owner', 'peer'],
    startsHolding: true,
    tone: 'truth',
    doc: 'A store node grants the key to an owner: a holding starts.',
  },
  'lock.queued': {
    actor: 'store',
    required: ['localUs', 'key', 'owner', 'peer', 'msg'],
    tone: 'info',
    doc: 'A blocking store makes a request wait for the lock.',
  },
  'lock.refreshed': { actor: 'store', required: ['localUs', 'key', 'owner', 'peer'], tone: 'truth', doc: 'A store node extends an owner’s lease.' },
  'lock.released': {
    actor: 'store',
    required: ['localUs', 'key', 'owner'],
    endsHolding: 'released',
    tone: 'truth',
    doc: 'A store node frees the key: on its owner’s request, or because its process or session ended.',
  },
  'lock.expired': {
    actor: 'store',
    required: ['localUs', 'key', 'owner'],
    endsHolding: 'expired',
    tone: 'truth-loss',
    doc: 'The lease ran out on the store node’s clock.',
  },
  'lock.deleted': {
    actor: 'store',
    required: ['localUs', 'key', 'owner'],
    endsHolding: 'deleted',
    tone: 'truth-loss',
    doc: 'Someone else deleted the key (a plain DEL, a lock file removed).',
  },
  'lock.overwritten': {
    actor: 'store',
    required: ['localUs', 'key', 'owner'],
    endsHolding: 'overwritten',
    tone: 'truth-loss',
    doc: 'Someone else overwrote the key (an unconditional SET).',
  },
  'lock.lost': {
    actor: 'store',
    required: ['localUs', 'key', 'owner', 'reason'],
    endsHolding: 'lost',
    tone: 'truth-loss',
    doc: 'The store lost the key: a restart, an eviction, a session that ended.',
  },
  'session.ended': {
    actor: 'store',
    required: ['localUs', 'peer', 'reason'],
    data: { what: 'string' },
    tone: 'truth-loss',
    doc: 'The server ends a client’s session, and the locks it held go with it.',
  },
  'store.down': { actor: 'store', required: ['localUs', 'reason'], tone: 'fault', doc: 'A store node goes down.' },
  'store.up': { actor: 'store', required: ['localUs'], tone: 'fault', doc: 'A store node is back.' },
  'store.pressure': { actor: 'store', required: ['localUs'], tone: 'fault', doc: 'Other traffic fills Memcached’s memory, and the LRU starts evicting.' },
  'replication.conflict': {
    actor: 'store',
    required: ['localUs', 'key', 'reason'],
    tone: 'info',
    doc: 'A database primary skips a replicated change that conflicts with its own row.',
  },
  'ttl.monitor': { actor: 'store', required: ['localUs'], tone: 'info', doc: 'MongoDB’s TTL monitor deletes expired documents.' },

  'write.accepted': {
    actor: 'resource',
    required: ['localUs', 'owner', 'peer', 'msg'],
    tone: 'write-ok',
    doc: 'The resource accepts a write.',
  },
  'write.rejected': {
    actor: 'resource',
    required: ['localUs', 'owner', 'peer', 'msg', 'reason'],
    tone: 'write-bad',
    doc: 'The resource rejects a write whose fencing token is lower than the highest it has seen (or absent).',
  },

  'msg.lost': { actor: 'net', required: ['peer', 'msg', 'reason'], tone: 'fault', doc: 'The network drops a message (a partition, random loss).' },

  'fault.missed': {
    actor: 'faults',
    required: [],
    data: { fault: 'integer', what: 'string', target: 'string', why: 'string' },
    tone: 'fault',
    doc: 'A scheduled pause or crash (data.what) of a client process (data.target) that had already ended (data.why: it had `finished` its script, or `crashed`): it does nothing.',
  },
  'partition.start': {
    actor: 'faults',
    required: [],
    data: { fault: 'integer', groups: 'string[][]' },
    tone: 'fault',
    doc: 'A partition cuts the machines into groups that cannot reach each other.',
  },
  'partition.end': { actor: 'faults', required: [], data: { fault: 'integer', groups: 'string[][]' }, tone: 'fault', doc: 'The partition heals.' },
  'clock.jump': {
    actor: 'faults',
    required: ['localUs'],
    data: { fault: 'integer', byUs: 'integer' },
    tone: 'fault',
    doc: 'A machine’s clock jumps (an NTP step).',
  },
  'clock.drift': {
    actor: 'faults',
    required: ['localUs'],
    data: { fault: 'integer', driftPpm: 'number' },
    tone: 'fault',
    doc: 'A machine’s clock starts drifting.',
  },
  'latency.start': {
    actor: 'faults',
    required: [],
    data: { fault: 'integer', extraUs: 'integer' },
    tone: 'fault',
    doc: 'Messages to and from some machines (data.machines; all when absent) are slowed down.',
  },
  'latency.end': { actor: 'faults', required: [], data: { fault: 'integer' }, tone: 'fault', doc: 'Latency is back to normal.' },
  'deploy.start': {
    actor: 'faults',
    required: [],
    data: { fault: 'integer', clients: 'string[]', store: 'object' },
    tone: 'fault',
    doc: 'A deploy gives some clients new store settings.',
  },
  'lock-files.deleted': {
    actor: 'faults',
    required: ['localUs'],
    data: { fault: 'integer', files: 'integer', dir: 'string' },
    tone: 'fault',
    doc: 'Lock files are deleted on a machine (a tmp cleaner, a tmpfs after a reboot): locks held on them exclude nobody any more.',
  },
  'ipc.removed': {
    actor: 'faults',
    required: ['localUs'],
    data: { fault: 'integer', semaphores: 'integer' },
    tone: 'fault',
    doc: 'systemd’s RemoveIPC deletes every System V semaphore on a machine.',
  },
} as const satisfies Readonly<Record<string, KindSpec>>;

export type EventKind = keyof typeof EVENT_KINDS;

/** The specs by kind in a Map: every event is looked up several times, and a Map look-up is the cheapest there is. */
const SPECS: ReadonlyMap<string, KindSpec> = new Map(Object.entries(EVENT_KINDS as Readonly<Record<string, KindSpec>>));

/** The spec of `kind`, or undefined for a kind this version does not know. */
export function kindSpec(kind: string): KindSpec | undefined {
  return SPECS.get(kind);
}

export const KIND_NAMES: readonly string[] = Object.keys(EVENT_KINDS);
