import type { ReactNode } from 'react';
import { formatDuration } from '../../../sim/time.js';
import { visibleMarks, visibleSpans, type DrawnSpan } from '../../model/lod.js';
import type { Span } from '../../model/types.js';
import { ROW_H, textPx, type Lane } from '../layout.js';
import { MARK_BUCKET_PX, roomAmongGlyphs, seconds, spanTitle, type DrawCtx } from './ctx.js';
import { glyph } from './glyph.js';
import { clockMarks, cutMarks } from './machine.js';

/** The words a bar can hold: the long form, the short one, or none. */
const barLabel = (long: string, short: string, widthPx: number): string =>
  widthPx > textPx(long, 11, true) + 8 ? long : widthPx > textPx(short, 11, true) + 8 ? short : '';

/** The words of a belief bar drawn from `x`, `w` wide, on a row at `y`, in the room the client's glyphs leave them (see `roomAmongGlyphs`). */
function beliefLabel(s: DrawnSpan, x: number, w: number, y: number, glyphXs: readonly number[]): ReactNode {
  const room = roomAmongGlyphs(x + 4, x + w - 4, glyphXs);
  const text = barLabel(`believes ${s.first.label}`, s.first.label, room.end - room.x + 8);
  if (text === '') return null;
  return (
    <text className="bar-label-light" x={room.x} y={y + 4}>
      {text}
    </text>
  );
}

/** Above this many refusal marks on a lane's view, they are drawn as one path. */
const DENSE = 60;
/** Above this many bars in a row, the row is one path (a click still finds the bar under the pointer). */
const DENSE_SPANS = 80;

/**
 * A row of many bars as one SVG path: a long trace at full zoom draws a
 * handful of elements per row instead of thousands. Clicking it inspects
 * the bar under the pointer (the timeline looks it up by time).
 */
function denseRow(c: DrawCtx, lane: Lane, spans: readonly DrawnSpan[], row: 'belief' | 'truth', y: number, client: string): void {
  const d = spans
    .map((s) => `M${c.px(s.fromUs).toFixed(1)},${y - ROW_H / 2}h${c.width(s.fromUs, s.toUs).toFixed(1)}v${ROW_H}h${(-c.width(s.fromUs, s.toUs)).toFixed(1)}z`)
    .join('');
  c.out.push(
    <g key={`${row}${lane.id}`} data-mark={row} data-client={client} data-dense={row} className="inspectable">
      <title>{`${spans.length} ${row === 'belief' ? 'times ' + client + ' believed it held the lock' : 'holdings the store had for ' + client} in view; zoom in to read each, or click one to inspect it`}</title>
      <path className={row} d={d} />
    </g>,
  );
}

const TRUTH_END_GLYPH: Readonly<Record<string, string>> = {
  'lock.expired': '◷',
  'lock.deleted': '✂',
  'lock.overwritten': '⇄',
  'lock.lost': '↯',
};

/** A client's lane: its pauses (solid, labelled where they begin), what it believes above what the store holds for it, refused attempts, crashes. */
export function clientLane(c: DrawCtx, lane: Lane): void {
  const client = c.model.clients.find((k) => k.name === lane.name)!;
  const marks = visibleMarks(client.marks, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX);
  const glyphXs = marks.map((m) => c.px(m.atUs));
  if (lane.pauseY !== null) {
    for (const s of visibleSpans(client.pauses, c.d0, c.d1, c.usPerPx)) {
      const w = c.width(s.fromUs, s.toUs);
      const label = `paused ${formatDuration(s.toUs - s.fromUs)}`;
      const inside = w > textPx(label, 10.5, true) + 8;
      c.out.push(
        <g key={`p${lane.id}${s.first.seq}`} data-mark="pause" data-client={client.name} data-seq={s.first.seq} data-from={s.fromUs} className="inspectable">
          <title>{spanTitle(s, `${client.name} is paused (GC stall): its timers and replies wait, and it keeps believing`)}</title>
          <rect className="pause" x={c.px(s.fromUs)} y={lane.pauseY - 6} width={w} height={12} rx={2} />
          <text className={inside ? 'pause-label' : 'bar-label-dark pause-label-out'} x={c.px(s.fromUs) + (inside ? 4 : w + 4)} y={lane.pauseY + 4}>
            {s.count > 1 ? `${s.count} pauses` : label}
          </text>
        </g>,
      );
    }
  }
  const beliefs = visibleSpans(client.belief, c.d0, c.d1, c.usPerPx);
  const truths = visibleSpans(client.truth, c.d0, c.d1, c.usPerPx);
  if (beliefs.length > DENSE_SPANS) denseRow(c, lane, beliefs, 'belief', lane.rowY, client.name);
  else
    for (const s of beliefs) {
      const w = c.width(s.fromUs, s.toUs);
      c.out.push(
        <g key={`b${lane.id}${s.first.seq}`} data-mark="belief" data-client={client.name} data-seq={s.first.seq} className="inspectable">
          <title>{spanTitle(s, `${client.name} believes it holds`)}</title>
          <rect className="belief" x={c.px(s.fromUs)} y={lane.rowY - ROW_H / 2} width={w} height={ROW_H} rx={3} />
          {s.count === 1 && beliefLabel(s, c.px(s.fromUs), w, lane.rowY, glyphXs)}
        </g>,
      );
    }
  if (truths.length > DENSE_SPANS) denseRow(c, lane, truths, 'truth', lane.truthY, client.name);
  else
    for (const s of truths) {
      const w = c.width(s.fromUs, s.toUs);
      const endGlyph = s.count === 1 ? TRUTH_END_GLYPH[s.first.end] : undefined;
      c.out.push(
        <g key={`t${lane.id}${s.first.seq}`} data-mark="truth" data-client={client.name} data-end={s.first.end} data-seq={s.first.seq} className="inspectable">
          <title>{spanTitle(s, `the store holds for ${client.name}`)}</title>
          <rect className="truth" x={c.px(s.fromUs)} y={lane.truthY - ROW_H / 2} width={w} height={ROW_H} />
          {s.count === 1 && barLabel(`store: ${s.first.label}`, s.first.label, w) !== '' && (
            <text className="bar-label-dark" x={c.px(s.fromUs) + 4} y={lane.truthY + 4}>
              {barLabel(`store: ${s.first.label}`, s.first.label, w)}
            </text>
          )}
          {endGlyph !== undefined && (
            <text className="glyph glyph-loss" x={c.px(s.toUs) + 2} y={lane.truthY + 5}>
              {endGlyph}
            </text>
          )}
        </g>,
      );
    }
  refusals(c, lane, client.belief, glyphXs);
  marks.forEach((m, i) => {
    c.out.push(glyph(m.mark, c.px(m.atUs), lane.rowY, m.count, client.name));
    // An exception, a fork and giving up are the story's turns: they say what they are, where there is room before the next mark or bar.
    if (m.count !== 1 || !(m.mark.kind.startsWith('exception.') || m.mark.kind === 'process.fork' || m.mark.kind === 'acquire.giveup')) return;
    const at = c.px(m.atUs);
    // Over a belief bar the words would run into the bar's own; the tooltip and the side panel still say them.
    if (client.belief.some((b) => b.fromUs <= m.atUs && b.toUs > m.atUs)) return;
    const next = marks[i + 1];
    const prev = marks[i - 1];
    const barAfter = client.belief.find((b) => b.fromUs > m.atUs);
    const barBefore = client.belief.findLast((b) => b.toUs <= m.atUs);
    // Nor into the refused attempts around it (a client that gives up has just been refused).
    const refused = c.annotations.refusals.get(lane.name) ?? [];
    const refusedAfter = refused.find((r) => r.atUs > m.atUs);
    const refusedBefore = refused.findLast((r) => r.atUs < m.atUs);
    const right =
      Math.min(
        next === undefined ? c.plotW : c.px(next.atUs),
        barAfter === undefined ? c.plotW : c.px(barAfter.fromUs),
        refusedAfter === undefined ? c.plotW : c.px(refusedAfter.atUs) - 6,
      ) -
      at -
      12;
    const left =
      at -
      Math.max(
        prev === undefined ? 0 : c.px(prev.atUs),
        barBefore === undefined ? 0 : c.px(barBefore.toUs),
        refusedBefore === undefined ? 0 : c.px(refusedBefore.atUs) + 6,
      ) -
      12;
    const need = textPx(m.mark.label, 10.5, true);
    // To the right where there is room, else to the left (an exception at the end of the run).
    const side = right > need ? 'right' : left > need ? 'left' : null;
    if (side !== null)
      c.out.push(
        <text
          key={`gl${lane.id}${m.mark.seq}`}
          className="mark-label"
          data-label-of={m.mark.seq}
          x={side === 'right' ? at + 10 : at - 12}
          y={lane.rowY + 4}
          textAnchor={side === 'right' ? 'start' : 'end'}
        >
          {m.mark.label}
        </text>,
      );
  });
  clockMarks(c, lane);
  cutMarks(c, lane);
}

/**
 * Attempts that did not get the lock: a short stroke from the request to the
 * answer, a cross, and the reason when there is room before whatever comes
 * next on the row: a refusal, a belief bar, or one of the client's glyphs
 * (`glyphXs`, in time order), such as giving up right after the last refusal.
 */
function refusals(c: DrawCtx, lane: Lane, beliefs: readonly Span[], glyphXs: readonly number[]): void {
  const list = c.annotations.refusals.get(lane.name) ?? [];
  const drawn = visibleMarks(list, c.d0, c.d1, c.usPerPx * MARK_BUCKET_PX);
  // Dozens of refusals in a row are a texture, not marks to read one by one: one path of ticks, until a closer zoom.
  if (drawn.length > DENSE) {
    const d = drawn.map((m) => `M${c.px(m.atUs).toFixed(1)},${lane.rowY - 4}v8`).join('');
    c.out.push(
      <g key={`rr${lane.id}`} data-mark="refused-many" data-count={drawn.reduce((n, m) => n + m.count, 0)}>
        <title>{`${lane.name}'s attempts refused ${drawn.reduce((n, m) => n + m.count, 0)} times here; zoom in to read each`}</title>
        <path className="refused-stroke" d={d} />
      </g>,
    );
    return;
  }
  drawn.forEach((d, i) => {
    const r = d.mark;
    const at = c.px(r.atUs);
    const next = drawn[i + 1];
    const label = d.count > 1 ? `${d.count} refused` : r.reason;
    // The reason's words stop before the next refusal, the client's next belief bar and its next glyph (whose disc reaches 8 px back).
    const bar = beliefs.find((b) => b.fromUs > r.atUs);
    const glyphX = glyphXs.find((x) => x >= at);
    const room =
      Math.min(next === undefined ? c.plotW : c.px(next.atUs), bar === undefined ? c.plotW : c.px(bar.fromUs), glyphX === undefined ? c.plotW : glyphX - 8) -
      at -
      12;
    c.out.push(
      <g key={`r${lane.id}${r.seq}`} data-mark="refused" data-client={lane.name} data-seq={r.seq} data-reason={r.reason} className="inspectable">
        <title>{d.count > 1 ? `${d.count} refused attempts here; zoom in` : `${lane.name}'s attempt refused at ${seconds(r.atUs)}: ${r.reason}`}</title>
        <circle className="hit" cx={at} cy={lane.rowY} r={10} />
        <line className="refused-stroke" x1={Math.min(at - 4, c.px(r.fromUs))} x2={at} y1={lane.rowY} y2={lane.rowY} />
        <rect className="refused-box" x={at - 5} y={lane.rowY - 5} width={10} height={10} rx={2} />
        <text className="refused-x" x={at} y={lane.rowY + 3.5} textAnchor="middle">
          ✕
        </text>
        {room > textPx(label, 10.5) && (
          <text className="refused-label" x={at + 8} y={lane.rowY + 4}>
            {label}
          </text>
        )}
      </g>,
    );
  });
}
