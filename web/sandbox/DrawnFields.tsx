import { meanMs, type Distribution } from '../../sim/kernel/dist.js';
import { WORK_MS_DEFAULT, type ClientSpec } from '../../sim/scenario/types.js';
import { CheckField, NumField, SelectField } from './fields.js';

/*
 * A client's work time and random GC pauses, as choices and numbers rather
 * than JSON: how a duration is drawn (the same every time, uniform,
 * exponential, long-tailed) and the few numbers that shape it.
 */

type Shape = Distribution['distribution'];
const SHAPES: readonly Shape[] = ['fixed', 'uniform', 'exponential', 'long-tail'];
const SHAPE_WORDS: Readonly<Record<Shape, string>> = {
  fixed: 'same every time',
  uniform: 'uniform',
  exponential: 'exponential',
  'long-tail': 'long tail (mostly short)',
};

/** A distribution of `shape` whose typical value is about `ms`. */
function reshape(shape: Shape, ms: number): Distribution {
  const round = (v: number) => Math.round(v);
  switch (shape) {
    case 'fixed':
      return { distribution: 'fixed', ms: round(ms) };
    case 'exponential':
      return { distribution: 'exponential', meanMs: round(ms) };
    case 'uniform':
      return { distribution: 'uniform', minMs: round(ms / 2), maxMs: round(ms * 1.5) };
    case 'long-tail':
      // A long tail's mean is its least plus a fifth of its range: keep about `ms` as the mean, from a tenth of it.
      return { distribution: 'long-tail', minMs: round(ms / 10), maxMs: round(ms / 10 + 4.5 * ms) };
  }
}

/** The numbers of one distribution, each a field. */
function ShapeNumbers({ what, d, onChange }: { what: string; d: Distribution; onChange: (d: Distribution) => void }) {
  const num = (v: number | null) => Math.max(0, v ?? 0);
  switch (d.distribution) {
    case 'fixed':
      return <NumField label={`${what} (ms)`} value={d.ms} min={0} onChange={(v) => onChange({ ...d, ms: num(v) })} />;
    case 'exponential':
      return <NumField label={`${what}, mean (ms)`} value={d.meanMs} min={0} onChange={(v) => onChange({ ...d, meanMs: num(v) })} />;
    case 'uniform':
    case 'long-tail':
      return (
        <>
          <NumField label={`${what}, shortest (ms)`} value={d.minMs} min={0} onChange={(v) => onChange({ ...d, minMs: num(v) })} />
          <NumField label={`${what}, longest (ms)`} value={d.maxMs} min={0} onChange={(v) => onChange({ ...d, maxMs: num(v) })} />
        </>
      );
  }
}

/** How a client's work time is drawn, and its numbers; `replace` puts a whole new client in its place. */
export function WorkTimeFields({ client, replace }: { client: ClientSpec; replace: (c: ClientSpec) => void }) {
  const shape: Shape = client.workTime?.distribution ?? 'fixed';
  const { workTime: _drawn, ...plain } = client;
  const fixed = <NumField label="Work per write (ms)" value={client.workMs} min={0} onChange={(v) => replace({ ...client, workMs: v ?? 0 })} />;
  return (
    <>
      <SelectField
        label="Work time"
        value={shape}
        options={SHAPES}
        labelOf={(s) => SHAPE_WORDS[s]}
        onChange={(next) => {
          const now = client.workTime === undefined ? client.workMs : meanMs(client.workTime);
          // The same every time is workMs, as a scenario file writes it; a drawn one is workTime, beside the default workMs.
          if (next === 'fixed') replace({ ...plain, workMs: Math.round(now) });
          else replace({ ...plain, workMs: WORK_MS_DEFAULT, workTime: reshape(next, now) });
        }}
      />
      {client.workTime === undefined ? fixed : <ShapeNumbers what="Work per write" d={client.workTime} onChange={(d) => replace({ ...client, workTime: d })} />}
    </>
  );
}

/** Whether a client pauses at random after acquiring (a GC pause), how often, and for how long. */
export function PauseFields({ client, replace }: { client: ClientSpec; replace: (c: ClientSpec) => void }) {
  const p = client.pauseAfterAcquire;
  const { pauseAfterAcquire: _pause, ...plain } = client;
  return (
    <>
      <CheckField
        label="Random GC pauses after acquiring"
        value={p !== undefined}
        onChange={(on) =>
          replace(on ? { ...plain, pauseAfterAcquire: { probability: 0.01, duration: reshape('long-tail', Math.round(client.ttlMs / 2)) } } : plain)
        }
      />
      {p !== undefined && (
        <>
          <NumField
            label="Chance of a pause after each acquisition (0 to 1)"
            value={p.probability}
            min={0}
            onChange={(v) => replace({ ...client, pauseAfterAcquire: { ...p, probability: v ?? 0 } })}
          />
          <SelectField
            label="Pause length"
            value={p.duration.distribution}
            options={SHAPES}
            labelOf={(s) => SHAPE_WORDS[s]}
            onChange={(next) => replace({ ...client, pauseAfterAcquire: { ...p, duration: reshape(next, meanMs(p.duration)) } })}
          />
          <ShapeNumbers what="Pause" d={p.duration} onChange={(d) => replace({ ...client, pauseAfterAcquire: { ...p, duration: d } })} />
        </>
      )}
    </>
  );
}
