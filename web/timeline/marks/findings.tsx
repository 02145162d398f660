import { BAND_LABEL_H, textPx } from '../layout.js';
import { seconds, type DrawCtx } from './ctx.js';

/** A double-ownership window's name: "⚠ A & B both believe", and how many more windows it stands for. */
const bandLabel = (clients: readonly string[], more: number): string =>
  `⚠ ${clients[0]} & ${clients[1]} both believe${more > 0 ? ` (+${more} more windows)` : ''}`;

/**
 * Where a band's name starts: at the band, or, for a band near the plot's
 * right edge (on a phone, most of them), as far left as the whole name
 * needs, since the plot cuts whatever runs past its edge.
 */
function bandLabelX(c: DrawCtx, fromUs: number, label: string): number {
  return Math.max(0, Math.min(c.px(fromUs) + 2, c.plotW - textPx(label, 11, true) - 2));
}

/**
 * Double-ownership windows: a cross-hatched band across every lane, named
 * underneath. Where windows follow each other closer than their names are
 * long, the first is named with how many more follow it before the next
 * name fits, instead of names printed over each other.
 */
export function doubleBands(c: DrawCtx, top: number): void {
  const visible = c.model.doubleOwnership.filter((d) => d.toUs >= c.d0 && d.fromUs <= c.d1);
  const named = new Map<number, number>();
  for (let i = 0; i < visible.length;) {
    const label = (n: number) => bandLabel(visible[i]!.clients, n);
    let j = i + 1;
    while (j < visible.length && c.px(visible[j]!.fromUs) < c.px(visible[i]!.fromUs) + 2 + textPx(label(j - i), 11, true) + 6) j++;
    named.set(i, j - i - 1);
    i = j;
  }
  visible.forEach((d, i) => {
    const w = c.width(d.fromUs, d.toUs);
    const more = named.get(i);
    c.out.push(
      <g key={`do${d.fromUs}-${d.clients.join()}`} data-mark="double-ownership" data-from={d.fromUs} data-to={d.toUs}>
        <title>{`Double ownership: ${d.clients[0]} and ${d.clients[1]} both believed they held ${d.key} from ${seconds(d.fromUs)} to ${seconds(d.toUs)}`}</title>
        <rect className="band-double" x={c.px(d.fromUs)} y={top} width={w} height={c.height - top - BAND_LABEL_H} />
        <rect className="band-double-hatch" x={c.px(d.fromUs)} y={top} width={w} height={c.height - top - BAND_LABEL_H} />
        {more !== undefined && (
          <text className="band-label" x={bandLabelX(c, d.fromUs, bandLabel(d.clients, more))} y={c.height - 4}>
            {bandLabel(d.clients, more)}
          </text>
        )}
      </g>,
    );
  });
}

/**
 * Each finding numbered in the strip under the axis, above the event it is
 * about, with a guide down to that event and a ring around it. The numbers
 * are the ones the findings list shows.
 */
export function findingMarks(c: DrawCtx, stripY: number): void {
  const { findings, findingAt, flaggedLane } = c.annotations;
  const number = new Map(findings.map((f, i) => [f.id, i + 1]));
  let lastX = -Infinity;
  for (const [seq, f] of [...findingAt].sort((a, b) => a[0] - b[0])) {
    const atUs = c.model.times[seq] ?? f.atUs;
    if (atUs < c.d0 || atUs > c.d1) continue;
    const x = c.px(atUs);
    const lane = c.lanes.get(flaggedLane.get(seq) ?? '');
    // Badges closer than their own width stack to the right, so each number stays readable.
    const bx = Math.max(x, lastX + 18);
    lastX = bx;
    c.out.push(
      <g key={`f${f.id}`} data-mark="finding" data-seq={seq} data-finding={f.kind} data-severity={f.severity} className="inspectable finding-mark">
        <title>{`${number.get(f.id)}. ${f.title} at ${seconds(atUs)}: ${f.sentence}`}</title>
        {lane !== undefined && <line className={`finding-guide finding-${f.severity}`} x1={x} x2={x} y1={stripY + 8} y2={lane.rowY - 10} />}
        {lane !== undefined && <circle className={`finding-ring finding-${f.severity}`} cx={x} cy={lane.rowY} r={11} />}
        <circle className={`finding-badge finding-${f.severity}`} cx={bx} cy={stripY} r={8} />
        <text className="finding-number" x={bx} y={stripY + 4} textAnchor="middle">
          {number.get(f.id)}
        </text>
      </g>,
    );
  }
}

/** Where a forked or compared trace first differs from the other one: a dashed line across the lanes. */
export function divergence(c: DrawCtx, divergeUs: number | null, top: number): void {
  if (divergeUs === null || divergeUs < c.d0 || divergeUs > c.d1) return;
  c.out.push(
    <g key="diverge" data-mark="divergence">
      <title>{`The two runs first differ here, at ${(divergeUs / 1e6).toFixed(6)} s`}</title>
      <line className="diverge-line" x1={c.px(divergeUs)} x2={c.px(divergeUs)} y1={top} y2={c.height} />
    </g>,
  );
}
