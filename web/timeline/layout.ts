import type { TraceModel } from '../model/types.js';

export const AXIS_H = 30;
export const GUTTER_W = 132;
const FAULTS_H = 26;
const CLIENT_H = 52;
const STORE_H = 32;
const RESOURCE_H = 40;

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
}

export const ROW_H = 14;
/** Room under the lanes for the labels of double-ownership bands. */
export const BAND_LABEL_H = 16;

/** Stacks the lanes of a trace: faults (when any), each client, each store node, the resource. */
export function layoutLanes(model: TraceModel): { lanes: Lane[]; height: number } {
  const lanes: Lane[] = [];
  let y = AXIS_H;
  if (model.faultBands.length > 0 || model.faultMarks.length > 0) {
    lanes.push({ id: 'faults', kind: 'faults', name: 'faults', machine: '', y, h: FAULTS_H, rowY: y + FAULTS_H / 2, truthY: y + FAULTS_H / 2 });
    y += FAULTS_H;
  }
  for (const c of model.clients) {
    lanes.push({ id: `client:${c.name}`, kind: 'client', name: c.name, machine: c.machine, y, h: CLIENT_H, rowY: y + 16, truthY: y + 35 });
    y += CLIENT_H;
  }
  for (const s of model.stores) {
    lanes.push({ id: `store:${s.name}`, kind: 'store', name: s.name, machine: s.machine, y, h: STORE_H, rowY: y + STORE_H / 2, truthY: y + STORE_H / 2 });
    y += STORE_H;
  }
  lanes.push({ id: 'resource', kind: 'resource', name: 'resource', machine: model.resource.machine, y, h: RESOURCE_H, rowY: y + 14, truthY: y + 14 });
  y += RESOURCE_H;
  return { lanes, height: y + (model.doubleOwnership.length > 0 ? BAND_LABEL_H : 4) };
}
