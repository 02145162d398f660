import { formatDuration, formatInstant } from '../../../sim/time.js';
import { localAt } from '../../model/state-at.js';
import type { LoadedTrace } from '../../state/traces.js';

/** Every machine's own clock beside true time at the playhead. */
export function Clocks({ trace, playheadUs }: { trace: LoadedTrace; playheadUs: number }) {
  const { doc, model } = trace;
  return (
    <table className="clock-table">
      <thead>
        <tr>
          <th scope="col">Machine</th>
          <th scope="col">Its clock</th>
          <th scope="col">vs true time</th>
        </tr>
      </thead>
      <tbody>
        {model.machines.map((m) => {
          const spec = doc.scenario.machines.find((s) => s.name === m.name);
          const local = localAt(m, playheadUs, (spec?.clockOffsetMs ?? 0) * 1000);
          const skew = local - playheadUs;
          return (
            <tr key={m.name} data-machine={m.name}>
              <th scope="row">{m.name}</th>
              <td>{formatInstant(local)}</td>
              <td>{skew === 0 ? 'in step' : `${skew > 0 ? '+' : '−'}${formatDuration(Math.abs(skew))}`}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
