import type { LoadedTrace } from '../state/traces.js';
import { useCursorOf, useUi } from '../state/ui.js';
import { BeliefTable, clientViews } from './side/BeliefTable.js';
import { Clocks } from './side/Clocks.js';
import { Facts } from './side/Facts.js';
import { Inspect } from './side/Inspect.js';
import { Now } from './side/Now.js';
import { usePanelHeading } from './heading.js';

/**
 * At the playhead: the current event in words (flagged when the checker
 * found something there), the details of an inspected event, then for each
 * client what it believes beside what the store holds for it, the store and
 * the resource, and every machine's own clock beside true time.
 */
export function SidePanel({ trace, primary = true }: { trace: LoadedTrace; primary?: boolean }) {
  const playheadUs = useUi((s) => s.playheadUs);
  const selected = useUi((s) => s.selected);
  const cursor = useCursorOf(trace, primary);
  const H = usePanelHeading(2);
  return (
    <aside className="side-panel" aria-label={primary ? 'At the playhead' : `At the playhead in ${trace.label}`}>
      <Now trace={trace} cursor={cursor} playheadUs={playheadUs} />
      {primary && selected !== null && <Inspect trace={trace} seq={selected} atCursor={selected === cursor} />}
      <section>
        <H className="panel-title">Belief beside truth</H>
        <BeliefTable views={clientViews(trace, cursor, playheadUs)} />
      </section>
      <section>
        <H className="panel-title">Store and resource</H>
        <Facts trace={trace} cursor={cursor} playheadUs={playheadUs} />
      </section>
      <section>
        <H className="panel-title">Clocks</H>
        <Clocks trace={trace} playheadUs={playheadUs} />
      </section>
    </aside>
  );
}
