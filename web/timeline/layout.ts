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
  /** A second line in the gutter (a resource lane's "fencing on"). */
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

/** Where a lane's machine clock is written in the gutter: under the lane's name (and a client's machine). */
export const clockY = (l: Lane): number => l.y + l.h - 7;
