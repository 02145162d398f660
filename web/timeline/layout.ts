import type { Annotations } from '../model/annotate.js';
import type { TraceModel } from '../model/types.js';

export const AXIS_H = 30;
export const GUTTER_W = 150;
/** The gutter of a narrow timeline (a phone), so the plot keeps most of the width. */
export const NARROW_GUTTER_W = 100;

/** The gutter's width for a timeline box this wide. */
export const gutterFor = (boxW: number): number => (boxW < 600 ? NARROW_GUTTER_W : GUTTER_W);
/** The strip under the axis where findings are numbered, when there are any. */
export const FINDINGS_H = 20;
const FAULTS_H = 26;
const CLIENT_H = 52;
const PAUSE_ROW_H = 16;
const STORE_H = 34;
const RESOURCE_H = 68;

/** Where one lane sits, and the centre lines of its rows, in SVG pixels. */
export interface Lane {
  readonly id: string;
  readonly kind: 'faults' | 'client' | 'store' | 'resource';
  readonly name: string;
  readonly machine: string;
  readonly y: number;
  readonly h: number;
  /** Client lanes: the belief row; other lanes: their one row. */
  readonly rowY: number;
  /** Client lanes: the truth row beneath the belief row. */
  readonly truthY: number;
  /** Client lanes with pauses: the row above the belief row where they are drawn. */
  readonly pauseY: number | null;
  /** The resource lane: the line that carries the highest token it has seen. */
  readonly tokenY: number;
  /** A second line in the gutter (a resource lane's "fencing on", a forked client's "child of A"). */
  readonly note?: string;
}

export const ROW_H = 14;
/** Room under the lanes for the labels of double-ownership bands. */
export const BAND_LABEL_H = 16;

/**
 * Stacks the lanes of a trace: faults (when any), each client, each store
 * node in the scenario's order, the resource. A client that pauses gets a
 * row for its pauses above its belief row.
 */
export function layoutLanes(
  model: TraceModel,
  annotations: Annotations,
  /** A second resource lane under the first, for the same run with fencing flipped (its gutter name). */
  pairResource: string | null = null,
  /** What the gutter says under the resource's name ("fencing on"). */
  resourceNote = '',
): { lanes: Lane[]; height: number; findingsY: number | null } {
  const lanes: Lane[] = [];
  let y = AXIS_H;
  const findingsY = annotations.findings.length > 0 ? y + FINDINGS_H / 2 : null;
  if (findingsY !== null) y += FINDINGS_H;
  const flat = (l: Omit<Lane, 'truthY' | 'pauseY' | 'tokenY'>): Lane => ({ ...l, truthY: l.rowY, pauseY: null, tokenY: l.rowY });
  if (model.faultBands.length > 0 || model.faultMarks.length > 0 || annotations.otherFaults.length > 0) {
    lanes.push(flat({ id: 'faults', kind: 'faults', name: 'faults', machine: '', y, h: FAULTS_H, rowY: y + FAULTS_H / 2 }));
    y += FAULTS_H;
  }
  for (const c of model.clients) {
    const pause = c.pauses.length > 0 ? PAUSE_ROW_H : 0;
    lanes.push({
      id: `client:${c.name}`,
      kind: 'client',
      name: c.name,
      machine: c.machine,
      y,
      h: CLIENT_H + pause,
      pauseY: pause > 0 ? y + 9 : null,
      rowY: y + pause + 16,
      truthY: y + pause + 35,
      tokenY: y + pause + 16,
      ...(c.parent === null ? {} : { note: `child of ${c.parent}` }),
    });
    y += CLIENT_H + pause;
  }
  const byName = new Map(model.stores.map((s) => [s.name, s]));
  for (const name of annotations.storeOrder) {
    const s = byName.get(name);
    if (s === undefined) continue;
    lanes.push(flat({ id: `store:${s.name}`, kind: 'store', name: s.name, machine: s.machine, y, h: STORE_H, rowY: y + STORE_H / 2 + 2 }));
    y += STORE_H;
  }
  lanes.push({
    id: 'resource',
    kind: 'resource',
    name: 'resource',
    machine: model.resource.machine,
    y,
    h: RESOURCE_H,
    rowY: y + 14,
    truthY: y + 14,
    pauseY: null,
    tokenY: y + 56,
    note: resourceNote,
  });
  y += RESOURCE_H;
  if (pairResource !== null) {
    lanes.push({
      id: 'resource-pair',
      kind: 'resource',
      name: pairResource,
      machine: model.resource.machine,
      y,
      h: RESOURCE_H,
      rowY: y + 14,
      truthY: y + 14,
      pauseY: null,
      tokenY: y + 56,
      note: 'same run, fencing off',
    });
    y += RESOURCE_H;
  }
  return { lanes, height: y + (model.doubleOwnership.length > 0 ? BAND_LABEL_H : 4), findingsY };
}

/** Average glyph width of the lab's sans-serif at a size, generous so a fitted label never overruns. */
const charPx = (fontPx: number, bold: boolean) => fontPx * (bold ? 0.64 : 0.58);

/** Cuts text to fit a width in pixels, ending in an ellipsis when it had to be cut. */
export function fitText(text: string, widthPx: number, fontPx: number, bold = false): string {
  const max = Math.floor(widthPx / charPx(fontPx, bold));
  if (text.length <= max) return text;
  return max <= 1 ? '…' : `${text.slice(0, max - 1)}…`;
}

/** How wide text will be drawn, by the same estimate. */
export const textPx = (text: string, fontPx: number, bold = false): number => text.length * charPx(fontPx, bold);

/** How far the whole time axis runs past a run's end, as a factor of its length: room for the last event's label (fullDomainOf). */
export const AFTER_END = 1.04;

/** Room a mark at a run's last instant needs on its right (a stale write's halo is 12 px across its centre, with its stroke). */
export const END_ROOM_PX = 18;

/**
 * The whole time axis, stretched so that a plot this wide keeps END_ROOM_PX
 * after its last instant. The axis given has a few per cent of room after
 * the run's end, plenty on a desktop and a third of a stale write's mark on
 * a phone, where that mark sat half off the right edge. It is only ever
 * widened, and not at all where the room is there already.
 */
export function withEndRoom(full: readonly [number, number], plotW: number): readonly [number, number] {
  const [d0, d1] = full;
  // The given axis ends AFTER_END times the run's length (fullDomainOf): that is where the run ends.
  const endUs = d0 + (d1 - d0) / AFTER_END;
  const roomPx = ((d1 - endUs) / Math.max(1, d1 - d0)) * plotW;
  if (roomPx >= END_ROOM_PX || plotW <= END_ROOM_PX * 2) return full;
  return [d0, Math.ceil(d0 + ((endUs - d0) * plotW) / (plotW - END_ROOM_PX))];
}

/** Where a lane's machine clock is written in the gutter: under the lane's name (and a client's machine). */
export const clockY = (l: Lane): number => l.y + l.h - 7;

/** Width of a character of the clocks' monospace font at 11 px. */
const MONO_PX = 6.6;

/**
 * A lane's clock reading, "◷ 10.001 s", shortened where the gutter is narrow
 * (a phone's): first without the clock sign, then without the unit, so it
 * never runs into the row name beside it ("0.000 sstore").
 */
export function clockText(instant: string, roomPx: number): string {
  for (const text of [`◷ ${instant}`, instant, instant.replace(/ s$/, '')]) if (text.length * MONO_PX <= roomPx) return text;
  return instant.replace(/ s$/, '');
}
