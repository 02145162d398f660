import { formatDuration, formatInstant } from '../time.js';
import type { TraceEvent } from '../trace/types.js';

/*
 * A stop's caption may quote the event it is pinned to — `{fence}`,
 * `{data.highestFence}`, `{time}` — so the numbers a learner reads are the
 * trace's own and move with it when the simulation changes.
 */

const PLACEHOLDER = /\{([a-zA-Z][a-zA-Z.]*)\}/g;

function valueOf(e: TraceEvent, name: string): string | undefined {
  switch (name) {
    case 'actor':
    case 'machine':
    case 'owner':
    case 'peer':
    case 'reason':
    case 'key':
      return e[name];
    case 'fence':
      return e.fence === undefined ? undefined : String(e.fence);
    case 'time':
      return formatInstant(e.timeUs);
    case 'local':
      return e.localUs === undefined ? undefined : formatInstant(e.localUs);
    case 'ttlLeft':
      return e.believes?.ttlLeftUs === undefined ? undefined : formatDuration(e.believes.ttlLeftUs);
    default: {
      if (!name.startsWith('data.')) return undefined;
      const v = e.data?.[name.slice(5)];
      return v === undefined ? undefined : String(v);
    }
  }
}

/** Fills a caption's placeholders from its event; `missing` lists those the event lacks. */
export function fillCaption(text: string, e: TraceEvent): { text: string; missing: string[] } {
  const missing: string[] = [];
  const out = text.replace(PLACEHOLDER, (whole, name: string) => {
    const v = valueOf(e, name);
    if (v === undefined) {
      missing.push(name);
      return whole;
    }
    return v;
  });
  return { text: out, missing };
}
