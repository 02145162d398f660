import type { ReactNode } from 'react';
import type { LoadedTrace } from '../state/traces.js';
import { GENERIC_OWNER, ownerExample } from './owner-example.js';

interface Item {
  readonly key: string;
  readonly sample: ReactNode;
  readonly words: ReactNode;
}

const svg = (body: ReactNode, w = 26) => (
  <svg width={w} height="14" aria-hidden="true" focusable="false">
    {body}
  </svg>
);

const glyph = (g: string) =>
  svg(
    <text x="13" y="11" textAnchor="middle" className="glyph legend-glyph">
      {g}
    </text>,
    16,
  );

/** Which of the lab's marks a set of traces actually draws, so the legend names those and no others. */
function present(traces: readonly LoadedTrace[]): Set<string> {
  const s = new Set<string>();
  for (const { model, annotations } of traces) {
    if (model.clients.some((c) => c.belief.length > 0)) s.add('belief');
    if (model.clients.some((c) => c.truth.length > 0) || model.stores.some((k) => k.holds.length > 0)) s.add('truth');
    if (model.clients.some((c) => c.pauses.length > 0)) s.add('pause');
    for (const m of model.clients.flatMap((c) => c.marks)) s.add(m.kind.startsWith('exception.') ? 'exception' : m.kind);
    if (model.clients.some((c) => c.parent !== null)) s.add('child');
    if (annotations.refusals.size > 0) s.add('refused');
    if (model.doubleOwnership.length > 0) s.add('double');
    if (annotations.findings.length > 0) s.add('findings');
    for (const w of model.resource.writes) s.add(w.accepted ? (w.stale ? 'write-stale' : 'write-ok') : 'write-rejected');
    if (model.resource.writes.some((w) => w.fence !== null && w.accepted)) s.add('highest');
    if (model.partitions.length > 0) s.add('partition');
    if (model.faultBands.some((b) => b.label.startsWith('latency'))) s.add('latency');
    if (model.stores.some((k) => k.downs.length > 0)) s.add('down');
    for (const k of model.stores.flatMap((st) => st.marks.map((m) => m.kind))) s.add(k);
    for (const m of [...model.faultMarks, ...annotations.otherFaults]) s.add(m.kind);
    if (model.clients.some((c) => c.belief.some((b) => b.label.includes(':')))) s.add('owner');
  }
  return s;
}

const ITEMS: readonly (Item & { when: string })[] = [
  {
    key: 'belief',
    when: 'belief',
    sample: svg(<rect className="belief" width="26" height="10" y="2" rx="3" />),
    words: 'the client believes it holds the lock',
  },
  {
    key: 'truth',
    when: 'truth',
    sample: svg(<rect className="truth" width="26" height="10" y="2" />),
    words: 'the store holds it (for that client, or on that node)',
  },
  // Its example is replaced by one from the runs shown (ownerExample).
  {
    key: 'owner',
    when: 'owner',
    sample: <span className="mono legend-token">{GENERIC_OWNER.label}</span>,
    words: GENERIC_OWNER.words,
  },
  { key: 'pause', when: 'pause', sample: svg(<rect className="pause" width="26" height="10" y="2" rx="2" />), words: 'paused (GC stall): it keeps believing' },
  {
    key: 'refused',
    when: 'refused',
    sample: svg(
      <>
        <rect className="refused-box" x="8" y="2" width="10" height="10" rx="2" />
        <text className="refused-x" x="13" y="10.5" textAnchor="middle">
          ✕
        </text>
      </>,
    ),
    words: 'attempt refused, with why',
  },
  {
    key: 'double',
    when: 'double',
    sample: svg(
      <>
        <rect className="band-double" width="26" height="14" />
        <rect className="band-double-hatch" width="26" height="14" />
      </>,
    ),
    words: 'double ownership: two clients believe at once',
  },
  {
    key: 'findings',
    when: 'findings',
    sample: svg(
      <>
        <circle className="finding-badge finding-damage" cx="13" cy="7" r="6.5" />
        <text className="finding-number" x="13" y="10.5" textAnchor="middle">
          1
        </text>
      </>,
    ),
    words: 'a finding of the checker, numbered as in the verdict',
  },
  { key: 'write-ok', when: 'write-ok', sample: svg(<circle className="write-ok" cx="13" cy="7" r="5.5" />), words: 'write accepted' },
  {
    key: 'write-rejected',
    when: 'write-rejected',
    sample: svg(<rect className="write-rejected" x="7.5" y="1.5" width="11" height="11" />),
    words: 'write rejected by fencing (token < highest seen)',
  },
  { key: 'write-stale', when: 'write-stale', sample: svg(<path className="write-stale" d="M13,0 L20,13 L6,13 Z" />), words: 'STALE write accepted: damage' },
  {
    key: 'highest',
    when: 'highest',
    sample: svg(<line className="highest-token" x1="2" x2="24" y1="7" y2="7" />),
    words: 'highest token the resource has seen',
  },
  {
    key: 'partition',
    when: 'partition',
    sample: svg(<rect className="fault-partition" width="26" height="10" y="2" />),
    words: 'partition: the lane cannot reach the others',
  },
  { key: 'latency', when: 'latency', sample: svg(<rect className="fault-latency" width="26" height="10" y="2" />), words: 'latency spike' },
  { key: 'down', when: 'down', sample: svg(<rect className="store-down" width="26" height="12" y="1" />), words: 'store node down' },
  { key: 'lock.expired', when: 'lock.expired', sample: glyph('◷'), words: 'expired' },
  { key: 'lock.deleted', when: 'lock.deleted', sample: glyph('✂'), words: 'deleted' },
  { key: 'lock.overwritten', when: 'lock.overwritten', sample: glyph('⇄'), words: 'overwritten' },
  { key: 'lock.lost', when: 'lock.lost', sample: glyph('↯'), words: 'lost (restart, eviction, session)' },
  { key: 'crash', when: 'process.crash', sample: glyph('✕'), words: 'crash' },
  { key: 'exception', when: 'exception', sample: glyph('!'), words: 'exception thrown (by the script or Symfony)' },
  { key: 'fork', when: 'process.fork', sample: glyph('⎇'), words: 'fork: the child gets a copy of the Lock' },
  { key: 'child', when: 'child', sample: <span className="mono legend-token">child of A</span>, words: 'a forked process’s own lane' },
  { key: 'refresh', when: 'refresh.ok', sample: glyph('↻'), words: 'lease refreshed' },
  { key: 'giveup', when: 'acquire.giveup', sample: glyph('⊘'), words: 'gives up: stops trying to get the lock' },
  { key: 'clock.jump', when: 'clock.jump', sample: glyph('⇥'), words: 'clock jump' },
  { key: 'clock.drift', when: 'clock.drift', sample: glyph('∿'), words: 'clock drift' },
  { key: 'msg.lost', when: 'msg.lost', sample: glyph('✉'), words: 'message lost' },
  { key: 'deploy.start', when: 'deploy.start', sample: glyph('⇪'), words: 'deploy' },
  { key: 'ipc.removed', when: 'ipc.removed', sample: glyph('⌫'), words: 'semaphores removed' },
  { key: 'lock-files.deleted', when: 'lock-files.deleted', sample: glyph('⌧'), words: 'lock files deleted (tmp clean-up)' },
  { key: 'fault.missed', when: 'fault.missed', sample: glyph('∅'), words: 'a pause or crash after its process had ended: it does nothing' },
];

/**
 * What the marks on screen mean, for what the traces actually draw: a
 * compact key under the timeline, so the picture reads without the help.
 */
export function Legend({ traces, divergence = false, all = false }: { traces: readonly LoadedTrace[]; divergence?: boolean; all?: boolean }) {
  const here = present(traces);
  const example = ownerExample(traces.map((t) => t.model));
  const items = (all ? ITEMS : ITEMS.filter((i) => here.has(i.when))).map((i) =>
    i.key === 'owner' && example !== null ? { ...i, sample: <span className="mono legend-token">{example.label}</span>, words: example.words } : i,
  );
  return (
    <ul className={all ? 'legend-bar legend-all' : 'legend-bar'} data-testid={all ? 'legend-all' : 'legend'} aria-label="What the marks mean">
      {items.map((i) => (
        <li key={i.key} data-legend={i.key}>
          {i.sample} {i.words}
        </li>
      ))}
      {divergence && <li data-legend="divergence">{svg(<line className="diverge-line" x1="13" x2="13" y1="0" y2="14" />)} where the two runs first differ</li>}
    </ul>
  );
}
