import type { ScaleLinear } from 'd3-scale';
import { memo } from 'react';
import type { Annotations } from '../model/annotate.js';
import type { TraceModel } from '../model/types.js';
import type { Lane } from './layout.js';
import { arrows } from './marks/arrows.js';
import { clientLane } from './marks/client.js';
import { makeCtx } from './marks/ctx.js';
import { faultsLane } from './marks/faults.js';
import { divergence, doubleBands, findingMarks } from './marks/findings.js';
import { resourceLane, type ResourceRow } from './marks/resource.js';
import { storeLane } from './marks/store.js';

export { MAX_ARROWS } from './marks/arrows.js';

interface Props {
  model: TraceModel;
  annotations: Annotations;
  lanes: readonly Lane[];
  x: ScaleLinear<number, number>;
  plotW: number;
  height: number;
  arrows: boolean;
  findingsY: number | null;
  /** Where a forked or compared trace first differs from the other one, drawn as a dashed line. */
  divergeUs: number | null;
  /** The resource rows to draw, by lane id: the trace's own, and the paired run's when fencing is shown beside it. */
  resources: ReadonlyMap<string, ResourceRow>;
}

/**
 * The static drawing of a trace at one zoom: bars, bands and marks. It does
 * not depend on the playhead, so scrubbing never redraws it.
 */
export const Marks = memo(function Marks(p: Props) {
  const c = makeCtx(p.model, p.annotations, p.x, p.plotW, p.height, p.lanes);
  const top = p.lanes[0]?.y ?? 0;
  doubleBands(c, top);
  divergence(c, p.divergeUs, top);
  for (const lane of p.lanes) {
    if (lane.kind === 'faults') faultsLane(c, lane);
    else if (lane.kind === 'client') clientLane(c, lane);
    else if (lane.kind === 'store') storeLane(c, lane);
    else {
      const row = p.resources.get(lane.id);
      if (row !== undefined) resourceLane(c, lane, row);
    }
  }
  if (p.arrows) arrows(c);
  if (p.findingsY !== null) findingMarks(c, p.findingsY);
  return <g className="marks">{c.out}</g>;
});
