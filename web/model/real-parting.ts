import { compareAnswers, type Answer } from '../../sim/real/agreement.js';
import { formatInstant } from '../../sim/time.js';
import type { TraceDocument } from '../../sim/trace/types.js';
import { roughDuration } from './rough.js';

/**
 * Where a run recorded on real servers parts from another run of its
 * scenario, in words. Real timestamps never equal simulated ones to the
 * microsecond, so comparing event by event would say they part at the very
 * first event; instead the runs are compared by what each client was
 * answered (sim/real/agreement.ts), and the times of shared answers give how
 * far apart the two clocks of events lie.
 */
export interface RealParting {
  /** The dashed line: where the first differing answer falls, or null when every answer is shared. */
  readonly divergeUs: number | null;
  readonly sentence: string;
}

const said = (a: Answer | null, run: string): string => (a === null ? `${run} has no answer there` : `${run} has ${a.kind} at ${formatInstant(a.atUs)}`);

export function realParting(a: TraceDocument, b: TraceDocument): RealParting {
  // Name the runs as the reader sees them: the simulation and the real run, or Run 1 and Run 2.
  const oneReal = (a.source === 'real') !== (b.source === 'real');
  const [first, second] = oneReal && a.source === 'real' ? [b, a] : [a, b];
  const [nameFirst, nameSecond] = oneReal ? ['the simulation', 'the real run'] : ['Run 1', 'Run 2'];
  const c = compareAnswers(
    first.events,
    second.events,
    first.scenario.clients.map((x) => x.name),
  );
  if (c.parting !== null) {
    const { client, sim, real } = c.parting;
    const divergeUs = Math.min(sim?.atUs ?? Infinity, real?.atUs ?? Infinity);
    return {
      divergeUs,
      sentence: `The runs part at ${formatInstant(divergeUs)}, in what ${client} was answered: ${said(sim, nameFirst)}, ${said(real, nameSecond)} (dashed line). Before that they share ${c.shared} answer${c.shared === 1 ? '' : 's'}.`,
    };
  }
  const w = c.widest;
  const apart =
    w === null
      ? ''
      : ` The same answers lie at most ${roughDuration(Math.abs(w.realUs - w.sim.atUs))} apart in time (${w.sim.actor}'s ${w.sim.kind}: ${formatInstant(w.sim.atUs)} and ${formatInstant(w.realUs)}).`;
  return {
    divergeUs: null,
    sentence: `The runs do not part: every client got the same ${c.shared} answer${c.shared === 1 ? '' : 's'}, in the same order, in both.${apart}`,
  };
}
