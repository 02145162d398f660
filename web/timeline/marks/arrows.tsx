import { seconds, type DrawCtx } from './ctx.js';

/** How many arrows the lab draws at once; beyond that the picture is noise, so it asks for a closer zoom. */
export const MAX_ARROWS = 400;

/**
 * Request/response arrows. A request the store answered without an event of
 * its own (a refusal) still goes to the store's lane and back, through the
 * midpoint of its round trip; a dropped message heads for its lane and stops
 * with a cross where it was lost.
 */
export function arrows(c: DrawCtx): void {
  let drawn = 0;
  let skipped = 0;
  for (const a of c.model.arrows) {
    const first = a.hops[0]!.atUs;
    const last = a.hops[a.hops.length - 1]!.atUs;
    if (last < c.d0 || first > c.d1) continue;
    if (drawn >= MAX_ARROWS) {
      skipped++;
      continue;
    }
    drawn++;
    let hops = a.hops;
    const peer = c.annotations.requestLane[a.msg];
    if (hops.length === 2 && hops[0]!.lane === hops[1]!.lane && peer !== undefined && peer !== hops[0]!.lane && a.lost === undefined) {
      hops = [hops[0]!, { atUs: (hops[0]!.atUs + hops[1]!.atUs) / 2, lane: peer }, hops[1]!];
    }
    const points = hops
      .map((h) => {
        const l = c.lanes.get(h.lane);
        return l === undefined ? null : `${c.px(h.atUs).toFixed(1)},${l.rowY.toFixed(1)}`;
      })
      .filter((p) => p !== null);
    if (points.length >= 2) {
      c.out.push(
        <polyline
          key={`a${a.msg}`}
          data-mark="arrow"
          data-msg={a.msg}
          data-lanes={hops.map((h) => h.lane).join(' ')}
          className="arrow"
          points={points.join(' ')}
          markerMid="url(#ll-arrowhead)"
          markerEnd="url(#ll-arrowhead)"
        />,
      );
    }
    const lastHop = a.hops[a.hops.length - 1]!;
    const from = c.lanes.get(lastHop.lane);
    const to = a.lost === undefined ? undefined : c.lanes.get(a.lost.toLane);
    if (a.lost !== undefined && from !== undefined && to !== undefined) {
      const x0 = c.px(lastHop.atUs);
      const x1 = c.px(a.lost.atUs) + 14;
      const y1 = (from.rowY + to.rowY) / 2;
      c.out.push(
        <g key={`l${a.msg}`} data-mark="arrow-lost">
          <title>{`message #${a.msg} to ${a.lost.toLane.replace(/^\w+:/, '')} lost at ${seconds(a.lost.atUs)}`}</title>
          <line className="arrow arrow-lost" x1={x0} y1={from.rowY} x2={x1} y2={y1} />
          <text className="glyph glyph-loss" x={x1} y={y1 + 4} textAnchor="middle">
            ✕
          </text>
        </g>,
      );
    }
  }
  if (skipped > 0)
    c.out.push(
      <text key="arrows-more" className="axis-note" x={c.plotW - 4} y={c.height - 4} textAnchor="end" data-mark="arrows-skipped">
        {`${skipped} more messages: zoom in to see their arrows`}
      </text>,
    );
}
