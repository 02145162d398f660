import type { ReactNode } from 'react';
import { visibleMarks } from '../../model/lod.js';
import type { Write } from '../../model/types.js';
import { textPx, type Lane } from '../layout.js';
import { MARK_BUCKET_PX, type DrawCtx } from './ctx.js';

export type WriteOutcome = 'stale-accepted' | 'rejected' | 'accepted';

export function writeOutcome(w: Write): WriteOutcome {
  if (!w.accepted) return 'rejected';
  return w.stale ? 'stale-accepted' : 'accepted';
}
const writeRank = (w: Write): number => (w.accepted ? (w.stale ? 2 : 0) : 1);

/** The words under a write: who, with which token, and what the resource made of it ("33 < 34" when fencing refused it). */
export function writeWords(w: Write, highest: number | null): string {
  const who = w.label.replace(' (no token)', '');
  const outcome = writeOutcome(w);
  if (outcome === 'accepted') return `${who} ok`;
  if (outcome === 'stale-accepted') return `${who} STALE, accepted`;
  return w.fence !== null && highest !== null ? `${who} rejected: ${w.fence} < ${highest}` : `${who} rejected`;
}

/** What the resource's lane carries: the writes, and the highest token seen (from the trace, or the paired run's). */
export interface ResourceRow {
  readonly writes: readonly Write[];
  readonly highestBefore: ReadonlyMap<number, number | null>;
  readonly endUs: number;
  /** The lane's role when two runs' resources are drawn one above the other ("fencing on"). */
  readonly scope: string;
}

/**
 * The resource's lane: each write where it arrived (circle accepted, square
 * rejected, triangle a stale write that got through), its words beneath,
 * and along the bottom the highest fencing token the resource has seen, so
 * a rejection reads as the comparison it is.
 */
export function resourceLane(c: DrawCtx, lane: Lane, row: ResourceRow): void {
  highestTokenLine(c, lane, row);
  // Words that would run into the previous write's drop to a second line, and are left out when both lines are taken.
  const lineEnd = [-Infinity, -Infinity];
  for (const m of visibleMarks(row.writes, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX, writeRank)) {
    const at = c.px(m.atUs);
    const w = m.mark;
    const highest = w.accepted ? (row.highestBefore.get(w.seq) ?? null) : rejectedAgainst(w, row);
    const words = m.count > 1 ? `${m.count} writes` : writeWords(w, highest);
    const half = textPx(words, 11) / 2;
    const anchor = at - half < 0 ? 'start' : at + half > c.plotW ? 'end' : 'middle';
    const from = anchor === 'start' ? at - 6 : anchor === 'end' ? at - 2 * half : at - half;
    const line = lineEnd.findIndex((end) => from > end + 6);
    if (line !== -1) lineEnd[line] = from + 2 * half;
    c.out.push(writeMark(w, at, lane, m.count, line === -1 ? null : words, line, anchor, row.scope, highest));
  }
}

/** The highest token a rejected write was compared with: the one it carries in the trace, or the highest accepted before it. */
function rejectedAgainst(w: Write, row: ResourceRow): number | null {
  return row.highestBefore.get(w.seq) ?? null;
}

/**
 * The highest token seen, as one step line along the bottom of the lane
 * (one SVG path however many writes raise it), labelled where a label fits.
 */
function highestTokenLine(c: DrawCtx, lane: Lane, row: ResourceRow): void {
  let highest: number | null = null;
  const steps: { fromUs: number; token: number; seq: number }[] = [];
  for (const w of row.writes) {
    if (w.accepted && w.fence !== null && (highest === null || w.fence > highest)) {
      highest = w.fence;
      steps.push({ fromUs: w.atUs, token: w.fence, seq: w.seq });
    }
  }
  if (steps.length === 0) return;
  let d = '';
  let lastX = -Infinity;
  let labelEnd = -Infinity;
  const labels: { x: number; text: string; seq: number }[] = [];
  steps.forEach((s, i) => {
    const toUs = steps[i + 1]?.fromUs ?? row.endUs;
    if (toUs < c.d0 || s.fromUs > c.d1) return;
    const x0 = c.px(Math.max(s.fromUs, c.d0));
    const x1 = c.px(Math.min(toUs, c.d1));
    // Steps closer than a pixel are one step on screen.
    if (x0 - lastX >= 1) d += `M${x0.toFixed(1)},${lane.tokenY - 4}V${lane.tokenY + 4}M${x0.toFixed(1)},${lane.tokenY}`;
    d += `H${x1.toFixed(1)}`;
    lastX = x0;
    const long = `highest token seen: ${s.token}`;
    const text = x1 - x0 > textPx(long, 10.5) + 8 ? long : String(s.token);
    if (x0 + 4 > labelEnd + 6 && x1 - x0 > textPx(String(s.token), 10.5) + 6) {
      labels.push({ x: x0 + 4, text, seq: s.seq });
      labelEnd = x0 + 4 + textPx(text, 10.5);
    }
  });
  c.out.push(
    <g key={`ht${row.scope}`} data-mark="highest-token" data-token={steps[steps.length - 1]!.token} data-first-token={steps[0]!.token}>
      <title>The highest fencing token the resource has seen; with fencing on it rejects any lower token.</title>
      <path className="highest-token" d={d} />
      {labels.map((l) => (
        <text key={l.seq} className="highest-token-label" x={l.x} y={lane.tokenY + 10}>
          {l.text}
        </text>
      ))}
    </g>,
  );
}

function writeMark(
  w: Write,
  x: number,
  lane: Lane,
  count: number,
  words: string | null,
  line: number,
  anchor: 'start' | 'middle' | 'end',
  scope: string,
  highest: number | null,
): ReactNode {
  const outcome = writeOutcome(w);
  const shape =
    outcome === 'accepted' ? (
      <circle className="write-ok" r={6} />
    ) : outcome === 'rejected' ? (
      <rect className="write-rejected" x={-6} y={-6} width={12} height={12} />
    ) : (
      <path className="write-stale" d="M0,-9 L8,6 L-8,6 Z" />
    );
  const symbol = outcome === 'accepted' ? '✓' : outcome === 'rejected' ? '✕' : '!';
  const said =
    outcome === 'accepted'
      ? 'accepted'
      : outcome === 'rejected'
        ? `REJECTED by fencing${highest === null || w.fence === null ? '' : ` (${w.fence} < ${highest})`}`
        : 'a STALE write, ACCEPTED: damage';
  return (
    <g
      key={`w${scope}${w.seq}`}
      data-mark="write"
      data-lane={lane.id}
      data-outcome={outcome}
      data-fence={w.fence ?? ''}
      {...(scope === 'own' ? { 'data-seq': w.seq } : { 'data-at-us': w.atUs })}
      className="inspectable"
      transform={`translate(${x.toFixed(1)},${lane.rowY})`}
    >
      <title>{count > 1 ? `${count} writes here; the worst is ${w.label}: ${said}` : `write from ${w.label}: ${said}`}</title>
      <circle className="hit" r={12} />
      {outcome === 'stale-accepted' && <circle className="write-stale-halo" r={12} />}
      {shape}
      <text className={`write-symbol write-symbol-${outcome}`} textAnchor="middle" y={outcome === 'stale-accepted' ? 4 : 3.5}>
        {symbol}
      </text>
      {words !== null && (
        <text className={`write-label write-label-${outcome}`} textAnchor={anchor} x={anchor === 'start' ? -6 : anchor === 'end' ? 6 : 0} y={21 + 12 * line}>
          {words}
        </text>
      )}
    </g>
  );
}
