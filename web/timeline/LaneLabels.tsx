import { laneNames } from './lane-names.js';
import { fitText, textPx, type Lane } from './layout.js';

/** Room the row names ("believes", "store") take at the gutter's right edge. */
const ROW_NAMES_W = 56;
/** A narrow gutter keeps the row names, shorter. */
const rowName = (gutter: number, long: string, short: string) => (gutter >= 150 ? long : short);

/**
 * The gutter: each lane's name and machine on lines of their own, cut to
 * the gutter's width (the whole name is in the tooltip), and a client's
 * row names at the right edge, where nothing else is written.
 */
export function LaneLabels({ lanes, plotW, gutter }: { lanes: readonly Lane[]; plotW: number; gutter: number }) {
  return (
    <g className="lane-labels">
      {lanes.map((l) => {
        const left = gutter - 8 - (l.kind === 'client' ? (gutter >= 150 ? ROW_NAMES_W : 40) : 4);
        const { name, where, full } = laneNames(l);
        // A forked child runs on its parent's machine; its second line says whose child it is.
        const second = l.kind === 'client' && l.note !== undefined ? l.note : where;
        const title = l.kind === 'client' && l.note !== undefined ? `${full}, ${l.note} (forked with a copy of its Lock)` : full;
        // A resource lane is tall enough for its machine on a line of its own, under its name, where the gutter is too narrow for both.
        const split = l.kind === 'resource' && where !== '' && textPx(full, 12.5, true) > left;
        return (
          <g key={l.id} data-lane={l.id}>
            <title>{title}</title>
            <line className="lane-sep" x1={0} x2={gutter + plotW} y1={l.y + l.h} y2={l.y + l.h} />
            {l.kind === 'client' ? (
              <>
                <text className="lane-name" x={8} y={l.y + 14}>
                  {fitText(name, left, 12.5, true)}
                </text>
                <text className="lane-machine" x={8} y={l.y + 27} {...(second === where ? {} : { 'data-note': second })}>
                  {fitText(second, left, 11)}
                </text>
                {l.pauseY !== null && (
                  <text className="row-name" x={gutter - 6} y={l.pauseY + 4} textAnchor="end">
                    {rowName(gutter, 'paused', 'pause')}
                  </text>
                )}
                <text className="row-name" x={gutter - 6} y={l.rowY + 4} textAnchor="end">
                  {rowName(gutter, 'believes', 'thinks')}
                </text>
                <text className="row-name" x={gutter - 6} y={l.truthY + 4} textAnchor="end">
                  store
                </text>
              </>
            ) : (
              <>
                <text className="lane-name" x={8} y={l.y + 14}>
                  {fitText(split ? name : full, left, 12.5, true)}
                </text>
                {split && (
                  <text className="lane-machine" x={8} y={l.y + 27}>
                    {fitText(where, left, 11)}
                  </text>
                )}
                {l.note !== undefined && l.note !== '' && (
                  <text className="lane-machine" x={8} y={l.y + (split ? 40 : 27)} data-note={l.note}>
                    {fitText(l.note, left, 11)}
                  </text>
                )}
              </>
            )}
          </g>
        );
      })}
    </g>
  );
}
