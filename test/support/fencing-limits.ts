import type { TraceDocument, TraceEvent } from '../../sim/trace/types.js';

/*
 * The documented limits of fencing (docs/fencing.md), as an oracle: given a
 * run with fencing on, it says for each accepted stale write which limit let
 * it through, or that none did — which would be a bug in a store's tokens or
 * in the resource.
 */

/** Why fencing could not stop a stale write. */
export type FencingLimit =
  /** No write from a newer holder had reached the resource yet, so it knew no higher token. */
  | 'newer-token-unseen'
  /** A store restart lost the counter, and a newer holder was handed a token no higher than the old one. */
  | 'counter-lost-in-restart'
  /** The two holders' tokens came from different counters (a deploy changed the key the store sees, or the server). */
  | 'tokens-from-two-counters';

export interface Explained {
  readonly seq: number;
  readonly limit: FencingLimit | null;
  /** Why the oracle decided so, for the failure message. */
  readonly detail: string;
}

interface Grant {
  readonly timeUs: number;
  readonly seq: number;
  /** The key as the store sees it (with any prefix). */
  readonly storeKey: string;
  readonly node: string;
  readonly fence: number | undefined;
}

/**
 * Explains every accepted stale write of a fenced run. Writes are judged in
 * trace order, each against the writes the resource had accepted before it.
 */
export function explainStaleWrites(doc: TraceDocument): Explained[] {
  const stale = new Set(doc.verdict.staleWrites.filter((w) => w.accepted).map((w) => w.seq));
  // Every grant of an owner token, in trace order: a client that acquires again keeps its token.
  const grants = new Map<string, Grant[]>();
  const downs: TraceEvent[] = [];
  const accepted: Array<{ write: TraceEvent; grant: Grant | undefined }> = [];
  const results: Explained[] = [];
  for (const e of doc.events) {
    if (e.kind === 'lock.granted' && e.owner !== undefined) {
      const list = grants.get(e.owner) ?? [];
      list.push({ timeUs: e.timeUs, seq: e.seq, storeKey: e.key ?? '', node: e.actor, fence: e.fence });
      grants.set(e.owner, list);
    }
    // A restart that keeps every write (AOF always) loses no counter.
    if (e.kind === 'store.down' && e.data?.persistence !== 'aof-always') downs.push(e);
    if (e.kind !== 'write.accepted') continue;
    // The acquisition a write belongs to: its owner's latest grant before it.
    const grant = grants.get(e.owner ?? '')?.at(-1);
    if (stale.has(e.seq)) results.push(judge(e, grant, downs, accepted));
    accepted.push({ write: e, grant });
  }
  return results;
}

function judge(
  write: TraceEvent,
  mine: Grant | undefined,
  downs: readonly TraceEvent[],
  before: ReadonlyArray<{ write: TraceEvent; grant: Grant | undefined }>,
): Explained {
  const owner = write.owner ?? '';
  if (mine === undefined) return { seq: write.seq, limit: null, detail: `the writer ${owner} was never granted the lock` };
  // Writes accepted earlier from acquisitions granted after this writer's.
  const newer = before.filter((p) => p.grant !== undefined && p.grant.seq > mine.seq && p.write.owner !== owner);
  if (newer.length === 0) return { seq: write.seq, limit: 'newer-token-unseen', detail: 'no newer holder had written yet' };
  let limit: FencingLimit = 'counter-lost-in-restart';
  for (const { write: p, grant: g } of newer) {
    if (g!.storeKey !== mine.storeKey || g!.node !== mine.node) {
      limit = 'tokens-from-two-counters';
      continue;
    }
    const lost = downs.some((d) => d.actor === mine.node && d.seq > mine.seq && d.seq < g!.seq);
    if (!lost) {
      return {
        seq: write.seq,
        limit: null,
        detail: `${p.owner!} (token ${String(p.fence)}, granted after ${owner}) wrote first, yet ${owner}'s token ${String(write.fence)} was accepted with no restart or deploy between their grants`,
      };
    }
  }
  return { seq: write.seq, limit, detail: '' };
}

/**
 * Grants of one key by one store node whose fencing token is not above every
 * token that node granted for that key before, with no restart between that
 * could have lost the counter. A store with a token source must have none.
 */
export function tokenOrderViolations(doc: TraceDocument): string[] {
  const highest = new Map<string, { fence: number; seq: number }>();
  const lastLossyDown = new Map<string, number>();
  const out: string[] = [];
  for (const e of doc.events) {
    if (e.kind === 'store.down' && e.data?.persistence !== 'aof-always') lastLossyDown.set(e.actor, e.seq);
    if (e.kind !== 'lock.granted' || e.fence === undefined) continue;
    const id = `${e.actor}\u0000${e.key ?? ''}`;
    const prev = highest.get(id);
    const reset = prev !== undefined && (lastLossyDown.get(e.actor) ?? -1) > prev.seq;
    if (prev !== undefined && !reset && e.fence <= prev.fence) {
      out.push(`${e.actor} granted ${e.key ?? ''} to ${e.owner ?? ''} with token ${e.fence}, not above its earlier ${prev.fence} (event ${e.seq})`);
    }
    if (prev === undefined || reset || e.fence > prev.fence) highest.set(id, { fence: e.fence, seq: e.seq });
  }
  return out;
}
