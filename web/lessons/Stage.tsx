import { ClientsCode, type RunNames } from '../components/ClientsCode.js';
import { PanelHeadingLevel } from '../components/heading.js';
import { SidePanel } from '../components/SidePanel.js';
import { Transport } from '../components/Transport.js';
import { VerdictView } from '../components/VerdictView.js';
import { useTrace } from '../state/traces.js';
import { useUi } from '../state/ui.js';
import { fullDomainOf } from '../state/zoom.js';
import { Timeline } from '../timeline/Timeline.js';

/**
 * The lab's timeline, transport and side panel, for the embed that owns the stage; an optional second trace is drawn above for comparison.
 * The panels' headings come under the embed's h3.
 */
export function Stage({
  title,
  compareTitle,
  runs,
  children,
  verdict = true,
  curtain = false,
}: {
  title: string;
  compareTitle?: string;
  /** How the clients' code names the two runs, when a second is drawn above: each process is then marked in both. */
  runs?: RunNames;
  children?: React.ReactNode;
  /** A story keeps the checker's verdict back until its end, so it does not give the plot away. */
  verdict?: boolean;
  /** Covers the timelines and the side panel while a stop asks what happens next: the drawing would tell. */
  curtain?: boolean;
}) {
  const primary = useTrace(useUi((s) => s.primaryId));
  const secondary = useTrace(useUi((s) => s.secondaryId));
  if (primary === null) return <p className="muted">Running…</p>;
  const domain = fullDomainOf(primary.id, secondary?.id ?? null);
  return (
    <PanelHeadingLevel.Provider value={4}>
      <div className="stage" data-testid="stage">
        <div className="stage-main">
          <div className={curtain ? 'curtained' : undefined} data-curtain={curtain}>
            {curtain && <p className="curtain-note">Answer the question below to see what happens next.</p>}
            {secondary !== null && <Timeline trace={secondary} fullDomain={domain} primary={false} title={compareTitle ?? secondary.label} />}
            <Timeline trace={primary} fullDomain={domain} primary title={title} />
          </div>
          <Transport trace={primary} />
          {children}
          {verdict && <VerdictView trace={primary} />}
          <ClientsCode trace={primary} other={runs === undefined ? null : secondary} {...(runs === undefined ? {} : { names: runs })} locked={curtain} />
        </div>
        <div className={curtain ? 'curtained' : undefined}>
          <SidePanel trace={primary} />
        </div>
      </div>
    </PanelHeadingLevel.Provider>
  );
}
