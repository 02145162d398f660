import { formatDuration, formatInstant } from '../time.js';
import { kindSpec, type EventTone } from './kinds.js';
import type { JsonValue, TraceEvent } from './types.js';
import { counted } from '../words.js';

export type { EventTone } from './kinds.js';

/** How an event is drawn, from the kind registry; a kind this version does not know is plain information. */
export function toneOf(e: TraceEvent): EventTone {
  return kindSpec(e.kind)?.tone ?? 'info';
}

const num = (e: TraceEvent, name: string): number | undefined => {
  const v = e.data?.[name];
  return typeof v === 'number' ? v : undefined;
};
const str = (e: TraceEvent, name: string): string | undefined => {
  const v = e.data?.[name];
  return typeof v === 'string' ? v : undefined;
};
/** A partition's groups, or a list of names, as words: "app1 | db1 db2". */
const groupsText = (v: JsonValue | undefined): string => {
  if (!Array.isArray(v)) return '';
  return v.map((g) => (Array.isArray(g) ? g.join(' ') : String(g))).join(' | ');
};
const names = (v: JsonValue | undefined): string[] => (Array.isArray(v) ? v.map(String) : []);
const token = (e: TraceEvent): string => (e.fence === undefined ? '' : `, fencing token ${e.fence}`);
/** The store command a request step sends, for protocols of several steps (memcached's gets, cas, delete). */
const step = (e: TraceEvent): string => {
  const c = str(e, 'command');
  return c === undefined ? '' : ` (${c})`;
};
const ttl = (e: TraceEvent): string => (e.ttlUs === undefined ? '' : ` (ttl ${formatDuration(e.ttlUs)})`);

/**
 * One plain sentence saying what an event means, for the terminal timeline
 * and the lab's side panel. Unknown kinds fall back to their name, so a
 * newer trace still reads.
 */
export function describe(e: TraceEvent): string {
  const key = e.key ?? 'the lock';
  const attempt = num(e, 'attempt');
  const again = attempt !== undefined && attempt > 1 ? ` (attempt ${attempt})` : '';
  switch (e.kind) {
    case 'client.start':
      return 'starts';
    case 'client.done':
      return e.reason === undefined ? 'finishes' : `ends: ${e.reason}`;
    case 'exists.request':
      return `asks ${e.peer ?? 'the store'} whether ${key} is free${again}`;
    case 'exists.reply':
      return e.data?.free === true ? `hears ${key} is free` : `hears ${key} is taken`;
    case 'acquire.request':
      return str(e, 'method') === 'set' ? `sets ${key}${ttl(e)} without checking again${again}` : `asks ${e.peer ?? 'the store'} for ${key}${ttl(e)}${again}`;
    case 'acquire.ok':
      return `acquires ${key} as ${e.owner ?? '?'}${token(e)}`;
    case 'acquire.denied': {
      const holder = str(e, 'holder');
      // Quorum stores refuse without naming a holder when too few nodes or stores answered yes.
      if (holder === undefined && e.reason !== undefined) return `is refused: ${e.reason}`;
      return `is refused: ${key} is held${holder === undefined ? '' : ` by ${holder}`}`;
    }
    case 'acquire.timeout':
      return 'hears nothing in time (the lock may or may not have been set)';
    case 'acquire.error':
      return e.reason === undefined || e.reason === 'refused' ? 'cannot connect: refused' : `fails: ${e.reason}`;
    case 'acquire.giveup':
      return `gives up after ${num(e, 'attempts') ?? '?'} attempt${num(e, 'attempts') === 1 ? '' : 's'}`;
    case 'quorum.missed': {
      // Redlock and Combined: a round that did not get enough nodes or stores (or got them too late).
      const granted = num(e, 'granted') ?? 0;
      const needed = num(e, 'needed') ?? 0;
      const validity = num(e, 'validityUs');
      const late = granted >= needed && validity !== undefined ? `, but its validity is gone (${formatDuration(validity)})` : '';
      const asked = num(e, 'asked');
      const of = num(e, 'of') ?? 0;
      const stopped = asked !== undefined && asked < of ? ` (stops after asking ${asked}: ${str(e, 'strategy') ?? 'the strategy'} can no longer be met)` : '';
      const retry = num(e, 'retryInUs');
      const then = retry === undefined ? '' : `, retries in ${formatDuration(retry)} (round ${(num(e, 'round') ?? 0) + 1} of ${num(e, 'rounds') ?? '?'})`;
      return `holds ${key} on ${granted} of ${of} ${str(e, 'unit') ?? 'nodes'}, ${needed} needed${late}${stopped}: releases it everywhere${then}`;
    }
    case 'work.start':
      return `works for ${formatDuration(num(e, 'workUs') ?? 0)}`;
    case 'refresh.request':
      return `asks ${e.peer ?? 'the store'} to extend ${key}${ttl(e)}${step(e)}`;
    case 'refresh.ok':
      return `extended ${key}`;
    case 'refresh.timeout':
      return `hears nothing about extending ${key} in time: stops believing (it may have been extended)`;
    case 'refresh.failed':
      return `could not extend ${key} (${e.reason ?? 'failed'}): stops believing`;
    case 'check.ok': {
      const left = num(e, 'ttlLeftUs');
      return left === undefined ? 'isExpired(): no, the lock never expires' : `checks its lease: ${formatDuration(left)} left by its own clock`;
    }
    case 'check.expired':
      return `checks its lease: ran out ${formatDuration(-(num(e, 'ttlLeftUs') ?? 0))} ago by its own clock`;
    case 'lifetime.read': {
      const left = num(e, 'remainingUs');
      return left === undefined
        ? 'getRemainingLifetime(): null (the lock never expires)'
        : left >= 0
          ? `getRemainingLifetime(): ${formatDuration(left)} left by its own clock`
          : `getRemainingLifetime(): ran out ${formatDuration(-left)} ago by its own clock`;
    }
    case 'isAcquired.request':
      return `asks ${e.peer ?? 'the store'} whether it still holds ${key} (isAcquired)`;
    case 'isAcquired.yes':
      return `isAcquired(): yes, ${key} still holds its token`;
    case 'isAcquired.no':
      return `isAcquired(): no, ${key} no longer holds its token`;
    case 'sleep.start':
      return `sleeps ${formatDuration(num(e, 'sleepUs') ?? 0)}`;
    case 'autorelease.check':
      return `its Lock object is destroyed (${str(e, 'why') ?? 'script end'}); autoRelease asks whether it still holds ${key}`;
    case 'process.fork':
      return `FORKS: child ${str(e, 'child') ?? '?'} starts with a copy of its Lock`;
    case 'write.request':
      return `writes to the resource${e.fence === undefined ? ' (no fencing token)' : ` with fencing token ${e.fence}`}`;
    case 'write.done':
      return 'hears its write was accepted';
    case 'write.refused':
      return 'hears its write was rejected (fenced): stops believing';
    case 'write.timeout':
      return 'hears nothing back from the resource';
    case 'release.request': {
      const at = e.peer === undefined ? '' : ` on ${e.peer}`;
      if (str(e, 'method') === 'plain-del') return `deletes ${key}${at} with a plain DEL${step(e)}`;
      return `releases ${key}${at}${step(e) === '' ? ' (token-checked)' : step(e)}`;
    }
    case 'release.ok':
      return 'hears the release succeeded';
    case 'release.lost':
      return `release() returns quietly: ${key} no longer held its token, so nothing was deleted`;
    case 'release.failed':
      return `hears the release failed: ${e.reason ?? 'not the owner'}`;
    case 'release.skipped':
      return `leaves ${key} unreleased: "${e.reason ?? 'an error'}" skipped the release (no finally)`;
    case 'release.timeout':
      return 'hears nothing back about its release';
    case 'release.error':
      if (e.data?.stillLocked === true) return `hears ${key} still holds its token: the store refused the release (${e.reason ?? 'an error'})`;
      return 'cannot connect to release';
    case 'exception.conflicted':
    case 'exception.expired':
    case 'exception.acquiring':
    case 'exception.releasing':
    case 'exception.invalid-ttl':
    case 'exception.store':
    case 'exception.unsupported':
    case 'exception.resource':
    case 'exception.user':
      return exceptionText(e);
    case 'process.pause':
      return `PAUSES for ${formatDuration(num(e, 'durationUs') ?? 0)} (GC stall)`;
    case 'process.resume':
      return 'resumes, unaware time has passed';
    case 'process.crash':
      return 'CRASHES';
    case 'lock.granted': {
      // Locks that never expire (flock, semaphores, sessions) carry no expiry.
      const expires = num(e, 'expiresLocalUs');
      const shared = e.data?.shared === true ? ' (shared)' : '';
      return `grants ${key}${shared} to ${e.owner ?? '?'}${token(e)}${expires === undefined ? '' : `, expiring at its clock ${formatInstant(expires)}`}`;
    }
    case 'lock.queued': {
      const wait = num(e, 'waitUs');
      const limit = wait === undefined || wait < 0 ? 'for as long as it takes' : `for up to ${formatDuration(wait)}`;
      return `makes ${e.owner ?? '?'} wait for ${key} (held by ${str(e, 'holder') ?? '?'}; queue position ${num(e, 'position') ?? '?'}), ${limit}`;
    }
    case 'lock-files.deleted':
      return `DELETES ${counted(num(e, 'files') ?? 0, 'lock file')} on ${e.machine}${str(e, 'dir') === '' ? '' : ` under ${str(e, 'dir') ?? ''}`} (tmp clean-up): their locks now exclude nobody`;
    case 'ipc.removed':
      return `REMOVES every System V semaphore on ${e.machine} (systemd RemoveIPC): ${num(e, 'semaphores') ?? 0} held`;
    case 'lock.refreshed':
      return `extends ${key} for ${e.owner ?? '?'} to its clock ${formatInstant(num(e, 'expiresLocalUs') ?? 0)}`;
    case 'lock.released':
      // A kernel lock is also freed when its process exits, without any request.
      if (e.reason !== undefined && e.reason !== 'released') return `frees ${key} held by ${e.owner ?? '?'}: ${e.reason}`;
      return `deletes ${key} held by ${e.owner ?? '?'} at its owner's request`;
    case 'lock.expired':
      return `EXPIRES ${key} held by ${e.owner ?? '?'}`;
    case 'lock.deleted':
      return `DELETES ${key} held by ${e.owner ?? '?'}: ${e.reason ?? 'deleted'}`;
    case 'lock.overwritten':
      return `OVERWRITES ${key} held by ${e.owner ?? '?'}: ${e.reason ?? 'overwritten'}`;
    case 'lock.lost':
      return `LOSES ${key} held by ${e.owner ?? '?'}: ${e.reason ?? 'lost'}`;
    case 'session.ended':
      // Session stores (PostgreSQL connections, ZooKeeper sessions, etcd leases): the server ends one, and its locks go with it.
      return `ENDS ${e.peer ?? '?'}'s ${str(e, 'what') ?? 'session'} (${e.reason ?? 'ended'}), which held ${counted(num(e, 'locks') ?? 0, 'lock')}`;
    case 'session.lost':
      return `learns from ${e.peer ?? 'the store'} that its ${str(e, 'what') ?? 'session'} is gone (${e.reason ?? 'lost'})`;
    case 'store.down':
      return `GOES DOWN (persistence ${str(e, 'persistence') ?? '?'}, ${counted(num(e, 'keysLost') ?? 0, 'key')} lost)`;
    case 'store.up':
      return `is back up with ${counted(num(e, 'keysKept') ?? 0, 'key')}`;
    case 'store.pressure':
      // Memcached: other traffic fills memory, and the LRU starts evicting.
      return `MEMORY PRESSURE: other clients write ${num(e, 'writesPerSec') ?? 0} items/s of ${num(e, 'itemBytes') ?? 0} bytes for ${formatDuration(num(e, 'durationUs') ?? 0)} into ${num(e, 'memoryBytes') ?? 0} bytes of memory`;
    case 'replication.conflict':
      return `skips a change to ${key} replicated from ${str(e, 'from') ?? '?'}: ${e.reason ?? 'conflict'}`;
    case 'ttl.monitor':
      return `TTL monitor pass deletes ${counted(num(e, 'deleted') ?? 0, 'expired document')}`;
    case 'write.accepted':
      return `accepts the write from ${e.owner ?? '?'}${e.fence === undefined ? '' : ` (token ${e.fence})`}`;
    case 'write.rejected': {
      const highest = num(e, 'highestFence');
      const why = e.fence !== undefined && highest !== undefined && highest >= 0 ? `token ${e.fence} < ${highest}` : (e.reason ?? 'fenced');
      return `REJECTS the write from ${e.owner ?? '?'}: ${why}`;
    }
    case 'msg.lost':
      return `drops message #${e.msg ?? '?'} to ${e.peer ?? '?'} (${e.reason ?? 'lost'})`;
    case 'fault.missed': {
      const target = typeof e.data?.target === 'string' ? e.data.target : '?';
      const what = e.data?.what === 'crash' ? 'crash' : 'pause';
      return `the ${what} of ${target} (faults[${num(e, 'fault') ?? '?'}]) does nothing: ${target} had already ${e.data?.why === 'crashed' ? 'crashed' : 'finished'}`;
    }
    case 'partition.start':
      return `PARTITION begins: ${groupsText(e.data?.groups)}`;
    case 'partition.end':
      return `partition heals: ${groupsText(e.data?.groups)}`;
    case 'clock.jump': {
      const by = num(e, 'byUs') ?? 0;
      return `CLOCK on ${e.machine} jumps ${by >= 0 ? 'forward' : 'back'} ${formatDuration(Math.abs(by))}`;
    }
    case 'clock.drift':
      return `clock on ${e.machine} now drifts ${num(e, 'driftPpm') ?? 0} ppm`;
    case 'latency.start':
      return `LATENCY +${formatDuration(num(e, 'extraUs') ?? 0)} for ${names(e.data?.machines).join(' ') || 'all'}`;
    case 'deploy.start': {
      const clients = names(e.data?.clients);
      return `DEPLOY: ${clients.join(' ') || '?'} now use${clients.length > 1 ? '' : 's'} the store settings ${JSON.stringify(e.data?.store ?? {})}`;
    }
    case 'latency.end':
      return `latency back to normal for ${names(e.data?.machines).join(' ') || 'all'}`;
    default:
      return e.kind;
  }
}

/** Why each kind of exception was thrown, in words. */
const EXCEPTION_WHY: Readonly<Record<string, string>> = {
  'exception.conflicted': 'someone else holds the lock, or it is gone',
  'exception.expired': 'the lease ran out while the request was in flight, so Symfony deleted the key',
  'exception.acquiring': 'the store could not be asked',
  'exception.releasing': 'the store could not be asked',
  'exception.invalid-ttl': 'the store takes no TTL under 1 s',
  'exception.store': 'the store could not be asked, and isAcquired() lets its error through',
  'exception.unsupported': 'the store has no such method',
  'exception.resource': 'the write failed',
  'exception.user': 'the script threw',
};

/** "acquire() THROWS LockAcquiringException (← LockAcquiringException ← LockExpiredException): the lease ran out…" */
function exceptionText(e: TraceEvent): string {
  const method = str(e, 'method') ?? '?';
  const chain = names(e.data?.chain);
  const thrown = str(e, 'thrown') ?? chain[0] ?? 'an exception';
  const previous = chain.length > 1 ? ` (← ${chain.slice(1).join(' ← ')})` : '';
  const who = method === 'throw' ? 'THROWS' : `${method}() THROWS`;
  // Lock::release() words this one itself: the store answered, and its key still holds our token.
  const why = e.kind === 'exception.releasing' && e.reason?.endsWith('the resource is still locked.') ? 'the key still holds its token' : EXCEPTION_WHY[e.kind];
  return `${who} ${thrown}${previous}: ${why ?? 'failed'}${e.reason === undefined ? '' : ` — "${e.reason}"`}`;
}

/** What a client believes, briefly: "holds A:1 (33), 9.998 s left". */
export function describeBelief(e: TraceEvent): string {
  const b = e.believes;
  if (b === undefined) return '';
  if (!b.holds) return 'holds nothing';
  const fence = b.fence === undefined ? '' : ` #${b.fence}`;
  const left = b.ttlLeftUs === undefined ? '' : b.ttlLeftUs >= 0 ? `, ${formatDuration(b.ttlLeftUs)} left` : `, expired ${formatDuration(-b.ttlLeftUs)} ago`;
  return `holds ${b.owner ?? '?'}${fence}${left}`;
}
