import { visibleMarks } from '../../model/lod.js';
import type { Lane } from '../layout.js';
import { MARK_BUCKET_PX, seconds, type DrawCtx } from './ctx.js';
import { glyph } from './glyph.js';

/**
 * While a partition holds, a strip along the bottom of every lane whose
 * machine it cuts off, titled with the machines out of reach: the faults lane
 * says a partition began, these say whom it blinds.
 */
export function cutMarks(c: DrawCtx, lane: Lane): void {
  for (const p of c.model.partitions) {
    if (p.toUs < c.d0 || p.fromUs > c.d1) continue;
    const mine = p.groups.findIndex((g) => g.includes(lane.machine));
    if (mine === -1) continue;
    const others = p.groups.filter((_, i) => i !== mine).flat();
    const x0 = c.px(Math.max(p.fromUs, c.d0));
    const w = Math.max(1, c.px(Math.min(p.toUs, c.d1)) - x0);
    c.out.push(
      <g key={`cut${lane.id}${p.seq}`} data-mark="cut" data-lane={lane.name} data-seq={p.seq} className="inspectable">
        <title>{`${lane.machine} cut off from ${others.join(', ')} (${seconds(p.fromUs)} to ${seconds(p.toUs)})`}</title>
        <rect className="fault-partition partition-cut" x={x0} y={lane.y + lane.h - 5} width={w} height={4} />
      </g>,
    );
  }
}

/** Clock jumps and drift changes of the lane's machine, at the top of the lane. */
export function clockMarks(c: DrawCtx, lane: Lane): void {
  const mine = c.model.faultMarks.filter((m) => m.kind.startsWith('clock.') && m.label.startsWith(`${lane.machine} `));
  for (const m of visibleMarks(mine, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX)) c.out.push(glyph(m.mark, c.px(m.atUs), lane.y + 8, m.count, lane.id));
}
