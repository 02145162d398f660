import { visibleMarks, visibleSpans } from '../../model/lod.js';
import { ROW_H, textPx, type Lane } from '../layout.js';
import { MARK_BUCKET_PX, roomAmongGlyphs, spanTitle, type DrawCtx } from './ctx.js';
import { glyph } from './glyph.js';

/** The faults lane: partitions and latency spikes as bands, clock changes, lost messages and other injected faults as glyphs. */
export function faultsLane(c: DrawCtx, lane: Lane): void {
  const marks = [...c.model.faultMarks, ...c.annotations.otherFaults].sort((a, b) => a.atUs - b.atUs || a.seq - b.seq);
  const drawn = visibleMarks(marks, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX);
  const glyphXs = drawn.map((m) => c.px(m.atUs));
  for (const s of visibleSpans(c.model.faultBands, c.d0, c.d1, c.usPerPx)) {
    const kind = s.first.label.startsWith('partition') ? 'partition' : 'latency';
    const x = c.px(s.fromUs);
    const w = c.width(s.fromUs, s.toUs);
    const label = bandLabel(s.count > 1 ? `${s.count} ${kind}s` : s.first.label, kind, x, x + w, glyphXs);
    c.out.push(
      <g key={`fb${s.first.seq}`} data-mark={kind} data-seq={s.first.seq} className="inspectable">
        <title>{spanTitle(s, kind)}</title>
        <rect className={`fault-${kind}`} x={x} y={lane.rowY - ROW_H / 2} width={w} height={ROW_H} />
        {label !== null && (
          <text className="bar-label-dark" x={label.x} y={lane.rowY + 4}>
            {label.text}
          </text>
        )}
      </g>,
    );
  }
  for (const m of drawn) c.out.push(glyph(m.mark, c.px(m.atUs), lane.rowY, m.count, 'fault'));
}

/**
 * The words a band from `from` to `to` (plot pixels) can hold, and where: the
 * whole label, else its kind alone, else none, in the room between the glyphs
 * drawn on the same row (`glyphXs`, in time order). A glyph at the band's
 * start, such as the messages a partition loses at once, moves the words past
 * it; the next glyph, or the band's end, is where they must stop.
 */
export function bandLabel(full: string, kind: string, from: number, to: number, glyphXs: readonly number[]): { text: string; x: number } | null {
  const { x, end } = roomAmongGlyphs(from + 3, to - 3, glyphXs);
  for (const text of [full, kind]) if (textPx(text, 11, true) <= end - x) return { text, x };
  return null;
}
