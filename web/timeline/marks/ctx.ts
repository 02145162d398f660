import type { ScaleLinear } from 'd3-scale';
import type { ReactNode } from 'react';
import type { Annotations } from '../../model/annotate.js';
import type { DrawnSpan } from '../../model/lod.js';
import type { TraceModel } from '../../model/types.js';
import type { Lane } from '../layout.js';

/** Everything a lane's drawing needs: the model, the scale and helpers in plot pixels, and the list to add to. */
export interface DrawCtx {
  readonly model: TraceModel;
  readonly annotations: Annotations;
  readonly x: ScaleLinear<number, number>;
  readonly plotW: number;
  readonly height: number;
  readonly d0: number;
  readonly d1: number;
  readonly usPerPx: number;
  /** A time in plot pixels, clamped just outside the plot so long spans do not draw for miles. */
  px(us: number): number;
  /** The drawn width of [a, b], at least a hairline. */
  width(a: number, b: number): number;
  readonly lanes: ReadonlyMap<string, Lane>;
  readonly out: ReactNode[];
}

export function makeCtx(
  model: TraceModel,
  annotations: Annotations,
  x: ScaleLinear<number, number>,
  plotW: number,
  height: number,
  lanes: readonly Lane[],
): DrawCtx {
  const [d0, d1] = x.domain() as [number, number];
  const px = (us: number) => Math.max(-2, Math.min(plotW + 2, x(us)));
  return {
    model,
    annotations,
    x,
    plotW,
    height,
    d0,
    d1,
    usPerPx: (d1 - d0) / Math.max(1, plotW),
    px,
    width: (a, b) => Math.max(1.5, px(b) - px(a)),
    lanes: new Map(lanes.map((l) => [l.id, l])),
    out: [],
  };
}

/** How far a glyph reaches on either side of its time, in pixels: its disc (7), and the halo of the words beside it. */
const GLYPH_REACH_PX = 11;

/**
 * The room words have from `from` to `to` (plot pixels) on a row where
 * glyphs are drawn at `glyphXs` (in time order): a glyph at `from`, such as
 * a fork right after the grant or the messages a partition loses at once,
 * moves their start past it, and the next glyph ends their room.
 */
export function roomAmongGlyphs(from: number, to: number, glyphXs: readonly number[]): { x: number; end: number } {
  let x = from;
  let end = to;
  for (const g of glyphXs) {
    if (g + GLYPH_REACH_PX <= x) continue;
    if (g - GLYPH_REACH_PX <= x) x = g + GLYPH_REACH_PX;
    else {
      end = Math.min(end, g - GLYPH_REACH_PX);
      break;
    }
  }
  return { x, end };
}

/** Marks closer than this many pixels share one drawn mark. */
export const MARK_BUCKET_PX = 7;

export const seconds = (us: number): string => `${(us / 1e6).toFixed(3)} s`;

export function spanTitle(s: DrawnSpan, what: string): string {
  if (s.count > 1) return `${s.count} ${what} spans merged at this zoom; zoom in to tell them apart`;
  return `${what}: ${s.first.label} from ${seconds(s.fromUs)} to ${seconds(s.toUs)}${s.first.end === 'open' ? ' (still at the end of the trace)' : `, ended by ${s.first.end}`}`;
}
