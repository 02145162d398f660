import { spansAt } from '../../model/state-at.js';
import type { Write } from '../../model/types.js';
import type { LoadedTrace } from '../../state/traces.js';

/** How many writes (sorted by sequence number) happened at or before an event. */
function writesUpTo(writes: readonly Write[], seq: number): number {
  let lo = 0;
  let hi = writes.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (writes[mid]!.seq <= seq) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The highest fencing token among accepted writes up to an event, as the resource remembers it. */
export function highestTokenAt(trace: LoadedTrace, cursor: number): number | null {
  const writes = trace.model.resource.writes;
  const n = writesUpTo(writes, cursor);
  const last = writes[n - 1];
  if (last === undefined) return null;
  const before = trace.annotations.highestBefore.get(last.seq) ?? null;
  return last.accepted && last.fence !== null && (before === null || last.fence > before) ? last.fence : before;
}

/** Each store node's keys and the resource's writes at the playhead. */
export function Facts({ trace, cursor, playheadUs }: { trace: LoadedTrace; cursor: number; playheadUs: number }) {
  const { doc, model } = trace;
  const writes = model.resource.writes;
  const writeCount = writesUpTo(writes, cursor);
  let lastAccepted: Write | undefined;
  // Walk back from the cursor to the latest accepted write; rejected ones are rare, so this is short.
  for (let i = writeCount - 1; i >= 0 && lastAccepted === undefined; i--) if (writes[i]!.accepted) lastAccepted = writes[i];
  const highest = highestTokenAt(trace, cursor);
  return (
    <ul className="facts">
      {trace.annotations.storeOrder.map((name) => {
        const s = model.stores.find((k) => k.name === name)!;
        const down = spansAt(s.downs, playheadUs).length > 0;
        const holds = spansAt(s.holds, playheadUs);
        return (
          <li key={s.name} data-store={s.name}>
            <strong>{s.name}</strong>: {down ? 'DOWN' : holds.length === 0 ? 'no key held' : holds.map((h) => `holds ${h.label}`).join(', ')}
          </li>
        );
      })}
      <li data-testid="resource-state">
        <strong>resource</strong>: {writeCount} write{writeCount === 1 ? '' : 's'} so far
        {lastAccepted !== undefined && `, last accepted from ${lastAccepted.label}`}
        {highest !== null && `, highest token seen ${highest}`}
        {doc.scenario.resource.fencing ? ' · fencing on' : ' · fencing off'}
      </li>
    </ul>
  );
}
