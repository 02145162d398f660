import type { TraceEvent } from '../../sim/trace/types.js';

/*
 * The batch checker as it was before the checker learnt to stream: two
 * passes over the whole trace, the lost-lock pass at the end. Kept as an
 * oracle: the streaming checker must reach the very same findings. It
 * follows the checker's rules as they grew: a write whose writer's own
 * holding had ended, with nobody granted the key since, is unprotected and
 * not stale; a release by another process than a believer loses its lock;
 * processes carrying one owner token (a fork) never own the lock twice.
 */

interface DoubleOwnership {
  key: string;
  fromUs: number;
  toUs: number;
  clients: [string, string];
  owners: [string, string];
}
interface StaleWrite {
  seq: number;
  timeUs: number;
  client: string;
  owner: string;
  fence: number | null;
  accepted: boolean;
  why: string;
}
interface LostLock {
  key: string;
  client: string;
  owner: string;
  atUs: number;
  how: string;
  reason: string;
}
export interface ReferenceVerdict {
  outcome: 'safe' | 'fenced' | 'unsafe';
  doubleOwnership: DoubleOwnership[];
  staleWrites: StaleWrite[];
  lostLocks: LostLock[];
  rejectedCurrent: number;
  unprotectedWrites: number;
}
const formatInstant = (us: number): string => String(us);

/** Store events that end a holding interval, and how. */
const HOLD_ENDS: Readonly<Record<string, string>> = {
  'lock.released': 'released',
  'lock.expired': 'expired',
  'lock.deleted': 'deleted',
  'lock.overwritten': 'overwritten',
  'lock.lost': 'lost',
};

interface Holding {
  /** The protected resource's key, as the client names it (a store may see it under a prefix). */
  readonly key: string;
  /** A shared (read) lock: held beside others, never superseding them. */
  readonly shared: boolean;
  /** Position among the holdings of the same key, which are in start order. */
  keyIndex: number;
  readonly owner: string;
  readonly client: string;
  readonly startUs: number;
  endUs: number | undefined;
  how: string | undefined;
  endReason: string | undefined;
}

interface BeliefInterval {
  readonly key: string;
  readonly shared: boolean;
  readonly client: string;
  readonly owner: string;
  readonly startUs: number;
  endUs: number | undefined;
}

/** The group a store node belongs to (`data.group`), or the node itself. */
function groupOf(e: TraceEvent): string {
  const g = e.data?.group;
  return typeof g === 'string' ? g : e.actor;
}

/** How many nodes of the group must hold for the lock to be held (`data.quorum`, default 1). */
function quorumOf(e: TraceEvent): number {
  const q = e.data?.quorum;
  return typeof q === 'number' ? q : 1;
}

/** Maps an owner token to its client: tokens are written `client:n`. */
function clientOf(owner: string): string {
  const i = owner.lastIndexOf(':');
  return i === -1 ? owner : owner.slice(0, i);
}

/**
 * Reads a trace and judges it. It looks at events only — never at the
 * simulation — so a trace recorded against real servers is judged the same
 * way.
 */
export function referenceCheck(events: readonly TraceEvent[]): ReferenceVerdict {
  // The key a client protects, by owner token: stores may see another key (a prefix, a path).
  const ownerKey = new Map<string, string>();
  // A client's event names the owner token it acts for (its request, if it never came to believe) and its own key.
  for (const e of events) {
    const owner = e.believes === undefined ? undefined : (e.owner ?? e.believes.owner);
    if (owner !== undefined && e.key !== undefined && !ownerKey.has(owner)) ownerKey.set(owner, e.key);
  }

  // Truth is kept per store node, then combined per group: the lock is held
  // while at least `quorum` nodes of its group hold it (1 of 1 for a single
  // node; a majority for Redlock; all stores for a unanimous Combined store).
  const nodeHeld = new Set<string>();
  const groupCount = new Map<string, number>();
  const openHolding = new Map<string, Holding>();
  const holdingsByKey = new Map<string, Holding[]>();
  const holdingsByOwner = new Map<string, Holding[]>();
  const beliefs: BeliefInterval[] = [];
  const openBelief = new Map<string, BeliefInterval>();
  const lostLocks: LostLock[] = [];
  const staleWrites: StaleWrite[] = [];
  const pendingLoss: Array<{ holding: Holding; atUs: number; by: string | undefined }> = [];
  let unprotectedWrites = 0;
  /** Writes the resource refused although their writer did hold the lock (no token to check). */
  let rejectedCurrent = 0;
  let lastUs = 0;

  for (const e of events) {
    lastUs = e.timeUs;
    if (e.believes !== undefined) {
      const b = e.believes;
      const current = openBelief.get(e.actor);
      if (current !== undefined && (!b.holds || b.owner !== current.owner)) {
        current.endUs = e.timeUs;
        openBelief.delete(e.actor);
      }
      if (b.holds && b.owner !== undefined && !openBelief.has(e.actor)) {
        const interval: BeliefInterval = { key: e.key ?? '', shared: b.shared === true, client: e.actor, owner: b.owner, startUs: e.timeUs, endUs: undefined };
        beliefs.push(interval);
        openBelief.set(e.actor, interval);
      }
    }
    if (e.kind === 'lock.granted' && e.owner !== undefined && e.key !== undefined) {
      const nodeId = `${e.actor}\u0000${e.owner}`;
      if (nodeHeld.has(nodeId)) continue;
      nodeHeld.add(nodeId);
      const groupId = `${groupOf(e)}\u0000${e.owner}`;
      const count = (groupCount.get(groupId) ?? 0) + 1;
      groupCount.set(groupId, count);
      if (count >= quorumOf(e) && !openHolding.has(groupId)) {
        const key = ownerKey.get(e.owner) ?? e.key;
        const h: Holding = {
          key,
          shared: e.data?.shared === true,
          keyIndex: holdingsByKey.get(key)?.length ?? 0,
          owner: e.owner,
          client: e.peer ?? clientOf(e.owner),
          startUs: e.timeUs,
          endUs: undefined,
          how: undefined,
          endReason: undefined,
        };
        openHolding.set(groupId, h);
        push(holdingsByKey, key, h);
        push(holdingsByOwner, e.owner, h);
      }
    } else if (HOLD_ENDS[e.kind] !== undefined && e.owner !== undefined) {
      const nodeId = `${e.actor}\u0000${e.owner}`;
      if (!nodeHeld.delete(nodeId)) continue;
      const groupId = `${groupOf(e)}\u0000${e.owner}`;
      const count = (groupCount.get(groupId) ?? 1) - 1;
      groupCount.set(groupId, count);
      const h = openHolding.get(groupId);
      if (h !== undefined && count < quorumOf(e)) {
        h.endUs = e.timeUs;
        h.how = HOLD_ENDS[e.kind];
        h.endReason = e.reason;
        openHolding.delete(groupId);
        if (h.how !== 'released') pendingLoss.push({ holding: h, atUs: e.timeUs, by: undefined });
        else if (e.peer !== undefined) pendingLoss.push({ holding: h, atUs: e.timeUs, by: e.peer });
      }
    } else if ((e.kind === 'write.accepted' || e.kind === 'write.rejected') && e.owner !== undefined) {
      const stale = staleness(e, holdingsByOwner, holdingsByKey);
      if (stale === 'unprotected') {
        unprotectedWrites++;
        continue;
      }
      if (stale === undefined && e.kind === 'write.rejected') rejectedCurrent++;
      if (stale !== undefined) {
        staleWrites.push({
          seq: e.seq,
          timeUs: e.timeUs,
          client: e.peer ?? clientOf(e.owner),
          owner: e.owner,
          fence: e.fence ?? null,
          accepted: e.kind === 'write.accepted',
          why: stale,
        });
      }
    }
  }

  // A lock is lost when its holding ends while the client's belief in that
  // very acquisition is still open at that instant.
  for (const { holding, atUs, by } of pendingLoss) {
    const believed = beliefs.some((b) => b.owner === holding.owner && b.client !== by && b.startUs <= atUs && (b.endUs === undefined || b.endUs > atUs));
    if (believed) {
      const reason = by === undefined ? (holding.endReason ?? '') : `released by ${by}`;
      lostLocks.push({ key: holding.key, client: holding.client, owner: holding.owner, atUs, how: holding.how ?? 'lost', reason });
    }
  }

  const doubleOwnership = overlaps(beliefs, lastUs);
  // The outcome judges the resource: damage is a stale write it accepted. Double
  // ownership without any stale write (say, the late holder checked its lease
  // and skipped its write) is reported, but did no harm.
  const outcome = staleWrites.some((w) => w.accepted) ? 'unsafe' : staleWrites.length > 0 ? 'fenced' : 'safe';
  return { outcome, doubleOwnership, staleWrites, lostLocks, rejectedCurrent, unprotectedWrites };
}

/** Why a write was stale, or undefined when its writer still solely held the lock. */
function staleness(write: TraceEvent, byOwner: ReadonlyMap<string, readonly Holding[]>, byKey: ReadonlyMap<string, readonly Holding[]>): string | undefined {
  const owner = write.owner!;
  const t = write.timeUs;
  // The writer's latest holding that began before the write (holdings are in start order).
  const mine = byOwner.get(owner)?.findLast((h) => h.startUs <= t);
  if (mine === undefined) return 'its writer never held the lock';
  let newer: Holding | undefined;
  const sameKey = byKey.get(mine.key) ?? [];
  for (let i = mine.keyIndex + 1; i < sameKey.length && sameKey[i]!.startUs <= t && newer === undefined; i++) {
    if (sameKey[i]!.owner !== owner && !sameKey[i]!.shared) newer = sameKey[i];
  }
  const ended = mine.endUs !== undefined && mine.endUs <= t;
  if (newer === undefined) return ended ? 'unprotected' : undefined;
  if (ended) {
    const detail = mine.how !== 'released' && mine.endReason !== undefined ? `: ${mine.endReason}` : '';
    return `its lock had ended at ${formatInstant(mine.endUs!)} (${mine.how ?? 'ended'}${detail})`;
  }
  return `${newer.client} had been granted the lock at ${formatInstant(newer.startUs)}`;
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [value]);
  else list.push(value);
}

/** Pairs of belief intervals on the same key, from different clients, that overlap in true time. */
function overlaps(beliefs: readonly BeliefInterval[], lastUs: number): DoubleOwnership[] {
  const out: DoubleOwnership[] = [];
  const sorted = [...beliefs].sort((a, b) => a.startUs - b.startUs);
  const active: BeliefInterval[] = [];
  for (const b of sorted) {
    for (let i = active.length - 1; i >= 0; i--) {
      if ((active[i]!.endUs ?? lastUs) <= b.startUs) active.splice(i, 1);
    }
    for (const a of active) {
      if (a.key !== b.key || a.client === b.client || a.owner === b.owner || (a.shared && b.shared)) continue;
      const toUs = Math.min(a.endUs ?? lastUs, b.endUs ?? lastUs);
      if (toUs > b.startUs) out.push({ key: a.key, fromUs: b.startUs, toUs, clients: [a.client, b.client], owners: [a.owner, b.owner] });
    }
    active.push(b);
  }
  return out;
}
