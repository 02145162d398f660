import { visibleMarks, visibleSpans } from '../../model/lod.js';
import { ROW_H, type Lane } from '../layout.js';
import { MARK_BUCKET_PX, spanTitle, type DrawCtx } from './ctx.js';
import { glyph } from './glyph.js';

/** The faults lane: partitions and latency spikes as bands, clock changes, lost messages and other injected faults as glyphs. */
export function faultsLane(c: DrawCtx, lane: Lane): void {
  for (const s of visibleSpans(c.model.faultBands, c.d0, c.d1, c.usPerPx)) {
    const kind = s.first.label.startsWith('partition') ? 'partition' : 'latency';
    c.out.push(
      <g key={`fb${s.first.seq}`} data-mark={kind} data-seq={s.first.seq} className="inspectable">
        <title>{spanTitle(s, kind)}</title>
        <rect className={`fault-${kind}`} x={c.px(s.fromUs)} y={lane.rowY - ROW_H / 2} width={c.width(s.fromUs, s.toUs)} height={ROW_H} />
        {c.width(s.fromUs, s.toUs) > 90 && (
          <text className="bar-label-dark" x={c.px(s.fromUs) + 3} y={lane.rowY + 4}>
            {s.first.label}
          </text>
        )}
      </g>,
    );
  }
  const marks = [...c.model.faultMarks, ...c.annotations.otherFaults].sort((a, b) => a.atUs - b.atUs || a.seq - b.seq);
  for (const m of visibleMarks(marks, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX)) c.out.push(glyph(m.mark, c.px(m.atUs), lane.rowY, m.count, 'fault'));
}
