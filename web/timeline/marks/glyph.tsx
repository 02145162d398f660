import type { ReactNode } from 'react';
import type { Mark } from '../../model/types.js';
import { seconds } from './ctx.js';

export const GLYPHS: Readonly<Record<string, string>> = {
  'process.crash': '✕',
  'clock.jump': '⇥',
  'clock.drift': '∿',
  'msg.lost': '✉',
  'lock.expired': '◷',
  'lock.deleted': '✂',
  'lock.overwritten': '⇄',
  'lock.lost': '↯',
  'deploy.start': '⇪',
  'ipc.removed': '⌫',
  'lock-files.deleted': '⌧',
  'fault.missed': '∅',
  exception: '!',
  'process.fork': '⎇',
  'refresh.ok': '↻',
  'acquire.giveup': '⊘',
};

/** The glyph's name for a mark: every kind of exception draws as one. */
export const glyphKind = (kind: string): string => (kind.startsWith('exception.') ? 'exception' : kind);

/** A round glyph for an instant on a lane; clicking it inspects its event. */
export function glyph(m: Mark, x: number, y: number, count: number, scope: string): ReactNode {
  const kind = glyphKind(m.kind);
  const g = GLYPHS[kind] ?? '•';
  return (
    <g key={`g${scope}${m.seq}`} data-mark={m.kind} data-seq={m.seq} className="inspectable" transform={`translate(${x.toFixed(1)},${y})`}>
      <title>{count > 1 ? `${count} events here (${m.label} …); zoom in` : `${m.label} at ${seconds(m.atUs)}`}</title>
      <circle className="hit" r={11} />
      <circle className={`glyph-bg glyph-${kind.replace('.', '-')}`} r={7} />
      <text className="glyph" textAnchor="middle" y={4}>
        {g}
      </text>
    </g>
  );
}
