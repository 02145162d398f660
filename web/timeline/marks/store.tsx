import { visibleMarks, visibleSpans } from '../../model/lod.js';
import { ROW_H, textPx, type Lane } from '../layout.js';
import { MARK_BUCKET_PX, roomAmongGlyphs, spanTitle, type DrawCtx } from './ctx.js';
import { glyph } from './glyph.js';
import { clockMarks, cutMarks } from './machine.js';

/** A store node's lane: when it was down, who held the key (one labelled bar per holder), and how holdings ended. */
export function storeLane(c: DrawCtx, lane: Lane): void {
  const s = c.model.stores.find((k) => k.name === lane.name)!;
  for (const d of visibleSpans(s.downs, c.d0, c.d1, c.usPerPx)) {
    c.out.push(
      <g key={`sd${lane.id}${d.first.seq}`} data-mark="store-down" data-seq={d.first.seq} className="inspectable">
        <title>{spanTitle(d, `${s.name} is down`)}</title>
        <rect className="store-down" x={c.px(d.fromUs)} y={lane.y + 2} width={c.width(d.fromUs, d.toUs)} height={lane.h - 4} />
      </g>,
    );
  }
  const marks = visibleMarks(s.marks, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX);
  // The glyphs sit just above the row, where a holding ends: the next holder's words start clear of them.
  const glyphXs = marks.map((m) => c.px(m.atUs));
  for (const h of visibleSpans(s.holds, c.d0, c.d1, c.usPerPx)) {
    const w = c.width(h.fromUs, h.toUs);
    const label = h.count > 1 ? `${h.count} holders` : h.first.label;
    const room = roomAmongGlyphs(c.px(h.fromUs) + 4, c.px(h.fromUs) + w - 4, glyphXs);
    c.out.push(
      <g key={`sh${lane.id}${h.first.seq}`} data-mark="store-hold" data-label={h.count > 1 ? '' : h.first.label} data-seq={h.first.seq} className="inspectable">
        <title>{spanTitle(h, `${s.name} holds the key for`)}</title>
        <rect className="truth" x={c.px(h.fromUs)} y={lane.rowY - ROW_H / 2} width={w} height={ROW_H} />
        {room.end - room.x > textPx(label, 11, true) && (
          <text className="bar-label-dark" x={room.x} y={lane.rowY + 4}>
            {label}
          </text>
        )}
      </g>,
    );
  }
  for (const m of marks) c.out.push(glyph(m.mark, c.px(m.atUs), lane.rowY - 10, m.count, s.name));
  clockMarks(c, lane);
  cutMarks(c, lane);
}
