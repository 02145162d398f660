import type { ScaleLinear } from 'd3-scale';
import { memo, type ReactNode } from 'react';
import { visibleMarks, visibleSpans, type DrawnSpan } from '../model/lod.js';
import type { Mark, TraceModel, Write } from '../model/types.js';
import { BAND_LABEL_H, ROW_H, type Lane } from './layout.js';

interface Props {
  model: TraceModel;
  lanes: readonly Lane[];
  x: ScaleLinear<number, number>;
  plotW: number;
  height: number;
  arrows: boolean;
  /** Where a forked or compared trace first differs from the other one, drawn as a dashed line. */
  divergeUs: number | null;
}

/** How many arrows the lab draws at once; beyond that the picture is noise, so it asks for a closer zoom. */
export const MAX_ARROWS = 400;
const MARK_BUCKET_PX = 7;

const TRUTH_END_GLYPH: Readonly<Record<string, string>> = {
  'lock.expired': '◷',
  'lock.deleted': '✂',
  'lock.overwritten': '⇄',
  'lock.lost': '↯',
};

function writeOutcome(w: Write): 'stale-accepted' | 'rejected' | 'accepted' {
  if (!w.accepted) return 'rejected';
  return w.stale ? 'stale-accepted' : 'accepted';
}
const writeRank = (w: Write): number => (w.accepted ? (w.stale ? 2 : 0) : 1);

function spanTitle(s: DrawnSpan, what: string): string {
  if (s.count > 1) return `${s.count} ${what} spans merged at this zoom; zoom in to tell them apart`;
  return `${what}: ${s.first.label} from ${(s.fromUs / 1e6).toFixed(3)} s to ${(s.toUs / 1e6).toFixed(3)} s${s.first.end === 'open' ? ' (still at the end of the trace)' : `, ended by ${s.first.end}`}`;
}

/**
 * The static drawing of a trace at one zoom: bars, bands and marks. It does
 * not depend on the playhead, so scrubbing never redraws it.
 */
export const Marks = memo(function Marks({ model, lanes, x, plotW, height, arrows, divergeUs }: Props) {
  const [d0, d1] = x.domain() as [number, number];
  const usPerPx = (d1 - d0) / Math.max(1, plotW);
  const px = (us: number) => Math.max(-2, Math.min(plotW + 2, x(us)));
  const width = (a: number, b: number) => Math.max(1.5, px(b) - px(a));
  const out: ReactNode[] = [];
  const laneY = new Map(lanes.map((l) => [l.id, l]));
  const top = lanes[0]?.y ?? 0;

  for (const d of model.doubleOwnership) {
    if (d.toUs < d0 || d.fromUs > d1) continue;
    const w = width(d.fromUs, d.toUs);
    out.push(
      <g key={`do${d.fromUs}-${d.clients.join()}`} data-mark="double-ownership" data-from={d.fromUs} data-to={d.toUs}>
        <title>{`Double ownership: ${d.clients[0]} and ${d.clients[1]} both believed they held ${d.key} from ${(d.fromUs / 1e6).toFixed(3)} s to ${(d.toUs / 1e6).toFixed(3)} s`}</title>
        <rect className="band-double" x={px(d.fromUs)} y={top} width={w} height={height - top - BAND_LABEL_H} />
        <rect className="band-double-hatch" x={px(d.fromUs)} y={top} width={w} height={height - top - BAND_LABEL_H} />
        <text className="band-label" x={px(d.fromUs) + 2} y={height - 4}>
          {`⚠ ${d.clients[0]} & ${d.clients[1]} both believe`}
        </text>
      </g>,
    );
  }
  if (divergeUs !== null && divergeUs >= d0 && divergeUs <= d1) {
    out.push(
      <g key="diverge" data-mark="divergence">
        <title>{`The two runs first differ here, at ${(divergeUs / 1e6).toFixed(6)} s`}</title>
        <line className="diverge-line" x1={px(divergeUs)} x2={px(divergeUs)} y1={top} y2={height} />
      </g>,
    );
  }

  for (const lane of lanes) {
    if (lane.kind === 'faults') {
      for (const s of visibleSpans(model.faultBands, d0, d1, usPerPx)) {
        const kind = s.first.label.startsWith('partition') ? 'partition' : 'latency';
        out.push(
          <g key={`fb${s.first.seq}`} data-mark={kind}>
            <title>{spanTitle(s, kind)}</title>
            <rect className={`fault-${kind}`} x={px(s.fromUs)} y={lane.rowY - ROW_H / 2} width={width(s.fromUs, s.toUs)} height={ROW_H} />
            {width(s.fromUs, s.toUs) > 90 && (
              <text className="bar-label-dark" x={px(s.fromUs) + 3} y={lane.rowY + 4}>
                {s.first.label}
              </text>
            )}
          </g>,
        );
      }
      for (const m of visibleMarks(model.faultMarks, d0, d1, usPerPx * MARK_BUCKET_PX)) out.push(glyph(m.mark, px(m.atUs), lane.rowY, m.count, 'fault'));
      continue;
    }
    if (lane.kind === 'client') {
      const c = model.clients.find((k) => k.name === lane.name)!;
      for (const s of visibleSpans(c.belief, d0, d1, usPerPx)) {
        const w = width(s.fromUs, s.toUs);
        out.push(
          <g key={`b${lane.id}${s.first.seq}`} data-mark="belief" data-client={c.name}>
            <title>{spanTitle(s, `${c.name} believes it holds`)}</title>
            <rect className="belief" x={px(s.fromUs)} y={lane.rowY - ROW_H / 2} width={w} height={ROW_H} rx={3} />
            {w > 70 && s.count === 1 && (
              <text className="bar-label-light" x={px(s.fromUs) + 4} y={lane.rowY + 4}>
                {`believes ${s.first.label}`}
              </text>
            )}
          </g>,
        );
      }
      for (const s of visibleSpans(c.truth, d0, d1, usPerPx)) {
        const w = width(s.fromUs, s.toUs);
        const endGlyph = s.count === 1 ? TRUTH_END_GLYPH[s.first.end] : undefined;
        out.push(
          <g key={`t${lane.id}${s.first.seq}`} data-mark="truth" data-client={c.name} data-end={s.first.end}>
            <title>{spanTitle(s, `the store holds for ${c.name}`)}</title>
            <rect className="truth" x={px(s.fromUs)} y={lane.truthY - ROW_H / 2} width={w} height={ROW_H} />
            {w > 70 && s.count === 1 && (
              <text className="bar-label-dark" x={px(s.fromUs) + 4} y={lane.truthY + 4}>
                {`store: ${s.first.label}`}
              </text>
            )}
            {endGlyph !== undefined && (
              <text className="glyph glyph-loss" x={px(s.toUs) + 2} y={lane.truthY + 5}>
                {endGlyph}
              </text>
            )}
          </g>,
        );
      }
      // A pause is a dotted strip along the top of the lane, so the bars beneath stay readable.
      for (const s of visibleSpans(c.pauses, d0, d1, usPerPx)) {
        const w = width(s.fromUs, s.toUs);
        out.push(
          <g key={`p${lane.id}${s.first.seq}`} data-mark="pause" data-client={c.name}>
            <title>{spanTitle(s, `${c.name} is paused (GC stall)`)}</title>
            <rect className="pause" x={px(s.fromUs)} y={lane.y + 1} width={w} height={5} />
            {w > 50 && (
              <text className="bar-label-dark pause-label" x={px(s.fromUs) + w - 4} y={lane.rowY + 4} textAnchor="end">
                paused
              </text>
            )}
          </g>,
        );
      }
      for (const m of visibleMarks(c.marks, d0, d1, usPerPx * MARK_BUCKET_PX)) out.push(glyph(m.mark, px(m.atUs), lane.rowY, m.count, c.name));
      clockMarks(model, lane, d0, d1, usPerPx, px, out);
      cutMarks(model, lane, d0, d1, px, out);
      continue;
    }
    if (lane.kind === 'store') {
      const s = model.stores.find((k) => k.name === lane.name)!;
      for (const d of visibleSpans(s.downs, d0, d1, usPerPx)) {
        out.push(
          <g key={`sd${lane.id}${d.first.seq}`} data-mark="store-down">
            <title>{spanTitle(d, `${s.name} is down`)}</title>
            <rect className="store-down" x={px(d.fromUs)} y={lane.y + 2} width={width(d.fromUs, d.toUs)} height={lane.h - 4} />
          </g>,
        );
      }
      for (const h of visibleSpans(s.holds, d0, d1, usPerPx)) {
        const w = width(h.fromUs, h.toUs);
        out.push(
          <g key={`sh${lane.id}${h.first.seq}`} data-mark="store-hold">
            <title>{spanTitle(h, `${s.name} holds the key for`)}</title>
            <rect className="truth" x={px(h.fromUs)} y={lane.rowY - ROW_H / 2} width={w} height={ROW_H} />
            {w > 50 && h.count === 1 && (
              <text className="bar-label-dark" x={px(h.fromUs) + 4} y={lane.rowY + 4}>
                {h.first.label}
              </text>
            )}
          </g>,
        );
      }
      for (const m of visibleMarks(s.marks, d0, d1, usPerPx * MARK_BUCKET_PX)) out.push(glyph(m.mark, px(m.atUs), lane.rowY - 9, m.count, s.name));
      clockMarks(model, lane, d0, d1, usPerPx, px, out);
      cutMarks(model, lane, d0, d1, px, out);
      continue;
    }
    // Labels need more room than marks; a write's label is left out when it would overlap the previous one.
    let lastLabelX = -Infinity;
    for (const m of visibleMarks(model.resource.writes, d0, d1, usPerPx * MARK_BUCKET_PX, writeRank)) {
      const at = px(m.atUs);
      const labelled = at - lastLabelX > 72;
      if (labelled) lastLabelX = at;
      out.push(writeMark(m.mark, at, lane.rowY, m.count, labelled, at < 40 ? 'start' : at > plotW - 40 ? 'end' : 'middle'));
    }
  }

  if (arrows) {
    let drawn = 0;
    let skipped = 0;
    for (const a of model.arrows) {
      const first = a.hops[0]!.atUs;
      const last = a.hops[a.hops.length - 1]!.atUs;
      if (last < d0 || first > d1) continue;
      if (drawn >= MAX_ARROWS) {
        skipped++;
        continue;
      }
      drawn++;
      const points = a.hops
        .map((h) => {
          const l = laneY.get(h.lane);
          return l === undefined ? null : `${px(h.atUs).toFixed(1)},${(l.kind === 'client' ? l.rowY : l.rowY).toFixed(1)}`;
        })
        .filter((p) => p !== null);
      if (points.length >= 2) {
        out.push(
          <polyline
            key={`a${a.msg}`}
            data-mark="arrow"
            className="arrow"
            points={points.join(' ')}
            markerMid="url(#ll-arrowhead)"
            markerEnd="url(#ll-arrowhead)"
          />,
        );
      }
      // A dropped message heads for its lane and stops halfway, with a cross where it was lost.
      const lastHop = a.hops[a.hops.length - 1]!;
      const from = laneY.get(lastHop.lane);
      const to = a.lost === undefined ? undefined : laneY.get(a.lost.toLane);
      if (a.lost !== undefined && from !== undefined && to !== undefined) {
        const x0 = px(lastHop.atUs);
        const x1 = px(a.lost.atUs) + 14;
        const y1 = (from.rowY + to.rowY) / 2;
        out.push(
          <g key={`l${a.msg}`} data-mark="arrow-lost">
            <title>{`message #${a.msg} to ${a.lost.toLane.replace(/^\w+:/, '')} lost at ${(a.lost.atUs / 1e6).toFixed(3)} s`}</title>
            <line className="arrow arrow-lost" x1={x0} y1={from.rowY} x2={x1} y2={y1} />
            <text className="glyph glyph-loss" x={x1} y={y1 + 4} textAnchor="middle">
              ✕
            </text>
          </g>,
        );
      }
    }
    if (skipped > 0)
      out.push(
        <text key="arrows-more" className="axis-note" x={plotW - 4} y={height - 4} textAnchor="end" data-mark="arrows-skipped">
          {`${skipped} more messages: zoom in to see their arrows`}
        </text>,
      );
  }
  return <g className="marks">{out}</g>;
});

/**
 * While a partition holds, a strip along the bottom of every lane whose
 * machine it cuts off, titled with the machines out of reach: the faults lane
 * says a partition began, these say whom it blinds.
 */
function cutMarks(model: TraceModel, lane: Lane, d0: number, d1: number, px: (us: number) => number, out: ReactNode[]): void {
  for (const p of model.partitions) {
    if (p.toUs < d0 || p.fromUs > d1) continue;
    const mine = p.groups.findIndex((g) => g.includes(lane.machine));
    if (mine === -1) continue;
    const others = p.groups.filter((_, i) => i !== mine).flat();
    const x0 = px(Math.max(p.fromUs, d0));
    const w = Math.max(1, px(Math.min(p.toUs, d1)) - x0);
    out.push(
      <g key={`cut${lane.id}${p.seq}`} data-mark="cut" data-lane={lane.name}>
        <title>{`${lane.machine} cut off from ${others.join(', ')} (${(p.fromUs / 1e6).toFixed(3)} s to ${(p.toUs / 1e6).toFixed(3)} s)`}</title>
        <rect className="fault-partition partition-cut" x={x0} y={lane.y + lane.h - 5} width={w} height={4} />
      </g>,
    );
  }
}

function clockMarks(model: TraceModel, lane: Lane, d0: number, d1: number, usPerPx: number, px: (us: number) => number, out: ReactNode[]): void {
  const mine = model.faultMarks.filter((m) => m.kind.startsWith('clock.') && m.label.startsWith(`${lane.machine} `));
  for (const m of visibleMarks(mine, d0, d1, usPerPx * MARK_BUCKET_PX)) out.push(glyph(m.mark, px(m.atUs), lane.y + 8, m.count, lane.id));
}

const GLYPHS: Readonly<Record<string, string>> = {
  'process.crash': '✕',
  'clock.jump': '⇥',
  'clock.drift': '∿',
  'msg.lost': '✉',
  'lock.expired': '◷',
  'lock.deleted': '✂',
  'lock.overwritten': '⇄',
  'lock.lost': '↯',
};

function glyph(m: Mark, x: number, y: number, count: number, scope: string): ReactNode {
  const g = GLYPHS[m.kind] ?? '•';
  return (
    <g key={`g${scope}${m.seq}`} data-mark={m.kind} transform={`translate(${x.toFixed(1)},${y})`}>
      <title>{count > 1 ? `${count} events here (${m.label} …); zoom in` : `${m.label} at ${(m.atUs / 1e6).toFixed(3)} s`}</title>
      <circle className={`glyph-bg glyph-${m.kind.replace('.', '-')}`} r={7} />
      <text className="glyph" textAnchor="middle" y={4}>
        {g}
      </text>
    </g>
  );
}

function writeMark(w: Write, x: number, y: number, count: number, labelled: boolean, anchor: 'start' | 'middle' | 'end'): ReactNode {
  const outcome = writeOutcome(w);
  const shape =
    outcome === 'accepted' ? (
      <circle className="write-ok" r={6} />
    ) : outcome === 'rejected' ? (
      <rect className="write-rejected" x={-6} y={-6} width={12} height={12} />
    ) : (
      <path className="write-stale" d="M0,-8 L7,6 L-7,6 Z" />
    );
  const symbol = outcome === 'accepted' ? '✓' : outcome === 'rejected' ? '✕' : '!';
  const words = outcome === 'accepted' ? 'accepted' : outcome === 'rejected' ? 'REJECTED (fenced)' : 'STALE, ACCEPTED';
  return (
    <g key={`w${w.seq}`} data-mark="write" data-outcome={outcome} data-fence={w.fence ?? ''} data-seq={w.seq} transform={`translate(${x.toFixed(1)},${y})`}>
      <title>{count > 1 ? `${count} writes here; the worst is ${w.label} ${words}` : `write from ${w.label}: ${words}`}</title>
      {shape}
      <text className={`write-symbol write-symbol-${outcome}`} textAnchor="middle" y={outcome === 'stale-accepted' ? 4 : 3.5}>
        {symbol}
      </text>
      {labelled && (
        <text className="write-label" textAnchor={anchor} x={anchor === 'start' ? -6 : anchor === 'end' ? 6 : 0} y={20}>
          {count > 1 ? `${count}×` : `${w.label.replace(' (no token)', '')} ${outcome === 'accepted' ? 'ok' : outcome === 'rejected' ? 'rejected' : 'stale!'}`}
        </text>
      )}
    </g>
  );
}
