import { summarize } from '../../sim/check/summary.js';
import { scaleLinear } from 'd3-scale';
import { select } from 'd3-selection';
import { zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from 'd3-zoom';
import { useEffect, useLayoutEffect, useMemo, useRef } from 'react';
import { spanAt } from '../model/state-at.js';
import type { LoadedTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { AXIS_H, FINDINGS_H, gutterFor, layoutLanes, withEndRoom } from './layout.js';
import { LaneLabels } from './LaneLabels.js';
import { Marks } from './Marks.js';
import type { ResourceRow } from './marks/resource.js';
import { Overlay } from './Overlay.js';
import { tickAnchor, timeTicks } from './ticks.js';
import { useWidth } from './useWidth.js';

interface Props {
  trace: LoadedTrace;
  /** The whole time axis; shared by stacked timelines so they line up. */
  fullDomain: readonly [number, number];
  primary: boolean;
  title: string;
  divergeUs?: number | null;
  /** The same run with fencing flipped, whose resource lane is drawn under this one's (its gutter name). */
  pair?: { trace: LoadedTrace; name: string } | null;
}

/** The narrowest window the zoom allows: 20 µs across the plot. */
const MIN_SPAN_US = 20;

/**
 * A trace on a time axis: a lane per client (belief above truth), per store
 * node and for the resource. Wheel or pinch zooms and dragging pans
 * (d3-zoom); a click moves the playhead there.
 */
export function Timeline({ trace, fullDomain: given, primary, title, divergeUs = null, pair = null }: Props) {
  const [boxRef, boxW] = useWidth<HTMLDivElement>();
  const svgRef = useRef<SVGSVGElement | null>(null);
  const zoomRef = useRef<ZoomBehavior<SVGSVGElement, unknown> | null>(null);
  const syncing = useRef(false);
  const domain = useUi((s) => s.domain);
  const arrows = useUi((s) => s.arrows);
  const seekTime = useUi((s) => s.seekTime);
  const setUi = useUi((s) => s.set);

  const GUTTER_W = gutterFor(boxW);
  const plotW = Math.max(160, boxW - GUTTER_W - 12);
  // On a narrow plot the axis runs a little past the run, so the marks at its last instant are not cut by the edge.
  const fullDomain = useMemo(() => withEndRoom(given, plotW), [given, plotW]);
  const { lanes, height, findingsY } = useMemo(
    () => layoutLanes(trace.model, trace.annotations, pair?.name ?? null, trace.doc.scenario.resource.fencing ? 'fencing on' : 'fencing off'),
    [trace, pair?.name],
  );
  const resources = useMemo(() => {
    const row = (t: LoadedTrace, scope: string): ResourceRow => ({
      writes: t.model.resource.writes,
      highestBefore: t.annotations.highestBefore,
      endUs: t.model.endUs,
      scope,
    });
    const m = new Map<string, ResourceRow>([['resource', row(trace, 'own')]]);
    if (pair !== null) m.set('resource-pair', row(pair.trace, 'pair'));
    return m;
  }, [trace, pair]);
  const base = useMemo(() => scaleLinear().domain(fullDomain).range([0, plotW]), [fullDomain, plotW]);
  const x = useMemo(
    () =>
      scaleLinear()
        .domain(domain ?? fullDomain)
        .range([0, plotW]),
    [domain, fullDomain, plotW],
  );
  const ticks = useMemo(() => timeTicks(x, Math.max(3, Math.floor(plotW / 110))), [x, plotW]);

  useEffect(() => {
    const svg = svgRef.current;
    if (svg === null) return;
    const span = fullDomain[1] - fullDomain[0];
    const z = d3zoom<SVGSVGElement, unknown>()
      .scaleExtent([1, Math.max(1, span / MIN_SPAN_US)])
      .extent([
        [GUTTER_W, 0],
        [GUTTER_W + plotW, height],
      ])
      .translateExtent([
        [GUTTER_W, -Infinity],
        [GUTTER_W + plotW, Infinity],
      ])
      // Dragging the playhead handle scrubs; it must not pan.
      .filter((ev: Event) => !(ev.target as Element).closest('.scrub') && !(ev as MouseEvent).button && ev.type !== 'dblclick')
      .on('zoom', (ev: D3ZoomEvent<SVGSVGElement, unknown>) => {
        if (syncing.current) return;
        const t = ev.transform;
        const scaled = t.rescaleX(base.copy().range([GUTTER_W, GUTTER_W + plotW]));
        const [a, b] = scaled.domain() as [number, number];
        const next: [number, number] = [Math.max(fullDomain[0], a), Math.min(fullDomain[1], b)];
        setUi({ domain: next[0] <= fullDomain[0] && next[1] >= fullDomain[1] ? null : next });
      });
    zoomRef.current = z;
    select(svg).call(z).on('dblclick.zoom', null);
    return () => {
      select(svg).on('.zoom', null);
    };
  }, [base, fullDomain, plotW, height, setUi, GUTTER_W]);

  // When the window changes from elsewhere (keys, a link, the other timeline), move d3-zoom's transform to match.
  useLayoutEffect(() => {
    const svg = svgRef.current;
    const z = zoomRef.current;
    if (svg === null || z === null) return;
    const [a, b] = domain ?? fullDomain;
    const k = (fullDomain[1] - fullDomain[0]) / Math.max(1, b - a);
    const tx = GUTTER_W - k * (base(a) + GUTTER_W);
    syncing.current = true;
    select(svg).call(z.transform, zoomIdentity.translate(tx, 0).scale(k));
    syncing.current = false;
  }, [domain, fullDomain, base, GUTTER_W]);

  useEffect(() => {
    // The bench and the tests time the first paint of the marks.
    const id = requestAnimationFrame(() => performance.mark('locklab:timeline-drawn'));
    return () => cancelAnimationFrame(id);
  }, [trace]);

  // A click on a mark inspects its event (the primary trace's only: the other one follows the playhead); elsewhere it moves the playhead.
  const onClick = (ev: React.MouseEvent<SVGSVGElement>) => {
    const dense = (ev.target as Element).closest('[data-dense]');
    if (primary && dense !== null) {
      // A row drawn as one path: the bar under the pointer is the one covering the click's time, or the last begun before it.
      const r = ev.currentTarget.getBoundingClientRect();
      const at = x.invert(ev.clientX - r.left - GUTTER_W);
      const lane = trace.model.clients.find((c) => c.name === dense.getAttribute('data-client'));
      const spans = dense.getAttribute('data-dense') === 'truth' ? lane?.truth : lane?.belief;
      const hit = spans === undefined ? null : (spanAt(spans, at) ?? spans.filter((sp) => sp.fromUs <= at).pop() ?? null);
      if (hit !== null) {
        useUi.getState().inspect(hit.seq);
        return;
      }
    }
    const mark = (ev.target as Element).closest('[data-seq], [data-at-us]');
    const seq = mark?.getAttribute('data-seq');
    if (primary && seq !== null && seq !== undefined) {
      useUi.getState().inspect(Number(seq));
      return;
    }
    const at = mark?.getAttribute('data-at-us');
    if (at !== null && at !== undefined) {
      seekTime(Number(at));
      return;
    }
    const r = ev.currentTarget.getBoundingClientRect();
    const px = ev.clientX - r.left - GUTTER_W;
    if (px < 0 || px > plotW) return;
    useUi.getState().set({ selected: null });
    seekTime(Math.round(x.invert(px)));
  };

  const outcome = trace.doc.verdict.outcome;
  return (
    <figure className="timeline" ref={boxRef} data-trace={trace.id} data-outcome={outcome}>
      <figcaption className="timeline-title">
        <span>{title}</span>
        <span className={`badge badge-${outcome}`}>{outcome}</span>
        {trace.doc.source === 'real' && <span className="badge badge-real">recorded on real servers</span>}
      </figcaption>
      <div className="timeline-stack">
        <svg
          ref={svgRef}
          className="timeline-svg"
          width={plotW + GUTTER_W + 8}
          height={height}
          role="img"
          aria-label={`Timeline of ${title}: ${trace.model.clients.length} clients, ${trace.doc.events.length} events. ${summarize(trace.doc.verdict).join(' ')}`}
          onClick={onClick}
        >
          <rect className="plot-bg" x={GUTTER_W} y={AXIS_H} width={plotW} height={height - AXIS_H} />
          <g className="axis" transform={`translate(${GUTTER_W},0)`}>
            {ticks.map((t) => (
              <g key={t.us} transform={`translate(${x(t.us)},0)`}>
                <line className="tick" y1={AXIS_H - 5} y2={height} />
                <text className="tick-label" y={12} textAnchor={tickAnchor(x(t.us), plotW, t.label.length * 6.6)}>
                  {t.label}
                </text>
              </g>
            ))}
          </g>
          {findingsY !== null && (
            <>
              <rect className="findings-strip" x={GUTTER_W} y={AXIS_H} width={plotW} height={FINDINGS_H} />
              <text className="row-name" x={GUTTER_W - 6} y={findingsY + 4} textAnchor="end">
                findings
              </text>
            </>
          )}
          <LaneLabels lanes={lanes} plotW={plotW} gutter={GUTTER_W} />
          <svg x={GUTTER_W} y={0} width={plotW} height={height} overflow="hidden">
            <Marks
              model={trace.model}
              annotations={trace.annotations}
              lanes={lanes}
              x={x}
              plotW={plotW}
              height={height}
              arrows={arrows}
              findingsY={findingsY}
              divergeUs={divergeUs}
              resources={resources}
            />
          </svg>
        </svg>
        {/* The playhead lives in its own layer, so moving it repaints a line, not the whole drawing. */}
        <svg className="timeline-overlay" width={plotW + GUTTER_W + 8} height={height} aria-hidden="true">
          <Overlay trace={trace} lanes={lanes} x={x} height={height} primary={primary} gutter={GUTTER_W} />
        </svg>
      </div>
    </figure>
  );
}
