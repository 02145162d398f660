import { check } from '../../sim/check/checker.js';
import { findingOf, type Finding } from '../../sim/real/agreement.js';
import type { Story } from '../../sim/lessons/types.js';
import { VerdictView } from '../components/VerdictView.js';
import { realParting } from '../model/real-parting.js';
import type { Recording } from '../state/recorded.js';
import type { LoadedTrace } from '../state/traces.js';

const clientName = (r: Recording): string => (r.client === 'symfony' ? 'Symfony Lock' : "Locklab's client");

/**
 * The story's way to real servers: a button for each recording of it, or,
 * for a story that cannot be made real, the reason in place of a button.
 */
export function RealServersControl({
  story,
  recordings,
  open,
  onWatch,
}: {
  story: Story;
  recordings: readonly Recording[];
  /** The "recorded on" line of the recording on screen, if any. */
  open: string | null;
  onWatch: (r: Recording) => void;
}) {
  if (story.notReal !== undefined || recordings.length === 0) {
    return (
      <p className="real-servers muted small" data-testid="not-real">
        Not on real servers: {story.notReal ?? 'this story has not been recorded yet (npm run record-real).'}
      </p>
    );
  }
  return (
    <p className="real-servers" role="group" aria-label="On real servers">
      {recordings.map((r) => (
        <button
          key={r.file}
          type="button"
          data-testid={`watch-real-${r.client}`}
          onClick={() => onWatch(r)}
          title={r.recordedOn}
          aria-pressed={open === r.recordedOn}
        >
          ▶ Watch this on real servers ({clientName(r)})
        </button>
      ))}{' '}
      {story.notOnSymfony !== undefined && <span className="muted small">Not with Symfony Lock: {story.notOnSymfony}</span>}
    </p>
  );
}

const OUTCOME: Readonly<Record<Finding['outcome'], string>> = {
  unsafe: 'unsafe, a stale write was accepted',
  fenced: 'fenced, fencing rejected every stale write',
  safe: 'safe, no stale write reached the resource',
};

function ending(f: Finding): string {
  const who =
    f.doubleOwnership.length === 0
      ? 'no two clients believed they held the lock at once'
      : `${f.doubleOwnership.map((p) => p.replace('+', ' and ')).join('; ')} both believed they held the lock`;
  return `${OUTCOME[f.outcome]}; ${who}`;
}

const hasFences = (t: LoadedTrace): boolean => t.doc.events.some((e) => e.kind === 'acquire.ok' && e.fence !== undefined);

/** The real run beside the story: where and with what it was recorded, its verdict, and whether it ends as the story does. */
export function RealPanel({
  story,
  real,
  note,
  racy,
  realRuns,
}: {
  story: LoadedTrace;
  real: LoadedTrace;
  note: string;
  /** The story's word on why its ending hangs on timing on real servers. */
  racy?: string | undefined;
  /** How many of the recorder's runs ended as the story does, for a racy story. */
  realRuns?: Recording['realRuns'];
}) {
  const simulated = findingOf(check(story.doc.events));
  const recorded = findingOf(check(real.doc.events));
  const agrees = JSON.stringify(simulated) === JSON.stringify(recorded);
  return (
    <section className="real-panel" data-testid="real-panel" aria-label="The same story on real servers">
      <h4 className="panel-title">On real servers: the upper timeline</h4>
      <p className="small">
        The same scenario, played on throwaway servers with each client its own OS process: pauses are real SIGSTOPs, crashes real SIGKILLs, and the checker
        judged this trace as it judges the simulation&rsquo;s. <span data-testid="real-recorded-on">{note.charAt(0).toUpperCase() + note.slice(1)}.</span>
      </p>
      <p className={agrees ? 'real-agrees' : 'real-differs'} data-testid="real-agreement" data-agrees={agrees}>
        {agrees
          ? `It ends as the story does: ${ending(recorded)}.`
          : `It ends differently from the story: on real servers ${ending(recorded)}; simulated, ${ending(simulated)}.`}{' '}
        {realParting(story.doc, real.doc).sentence}
      </p>
      {racy !== undefined && realRuns !== undefined && (
        <p className="small" data-testid="real-odds">
          {racy} It ended as the story does in {realRuns.ended} of {realRuns.of} runs on real servers; this recording is one of them.
        </p>
      )}
      {hasFences(story) && !hasFences(real) && (
        <p className="small" data-testid="real-no-fences">
          Symfony Lock hands out no fencing token, so the real run&rsquo;s bars carry no #number; the story&rsquo;s tokens come from Locklab&rsquo;s INCR
          counter.
        </p>
      )}
      <VerdictView trace={real} primary={false} />
    </section>
  );
}
