import type { Tally } from '../../sim/odds/tally.js';
import type { Scenario } from '../../sim/scenario/types.js';
import type { InputIssue } from '../../sim/errors.js';

/** What the Odds view asks a sweep worker: a batch of seeds, or the smallest failure of one run. */
export type OddsRequest =
  { id: number; type: 'batch'; scenario: Scenario; from: number; to: number } | { id: number; type: 'shrink'; scenario: Scenario; seed: number };

export type OddsReply =
  | { id: number; ok: true; type: 'batch'; tally: Tally; ms: number }
  | { id: number; ok: true; type: 'shrink'; scenario: Scenario; changes: string[]; runs: number }
  | { id: number; ok: false; source: string; issues: InputIssue[] };
