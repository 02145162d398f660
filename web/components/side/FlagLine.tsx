import type { Finding } from '../../model/findings.js';

const SYMBOL = { damage: '✕', fenced: '◆', warning: '⚠' } as const;

/** A finding said in words and colour where its event is shown: the side panel, the event log, the inspector. */
export function FlagLine({ finding, compact = false }: { finding: Finding; compact?: boolean }) {
  const Tag = compact ? 'span' : 'p';
  return (
    <Tag className={`flag flag-${finding.severity}`} data-flag={finding.kind}>
      <span aria-hidden="true">{SYMBOL[finding.severity]} </span>
      {finding.sentence}
    </Tag>
  );
}
