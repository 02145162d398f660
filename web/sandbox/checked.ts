import { create } from 'zustand';
import { InputError } from '../../sim/errors.js';
import { clientPhp } from '../../sim/scenario/steps-php.js';
import type { Scenario } from '../../sim/scenario/types.js';
import { tally } from '../tallies.js';

/*
 * The Sandbox's scenario checked as the run would check it, once for each
 * change of the form, and each client's PHP written from the result. A card
 * reads only its own client's PHP, so an edit redraws the cards whose PHP
 * it changed and no other. Checking the whole scenario once per card made
 * an edit cost the square of the number of clients.
 */

export interface CheckedState {
  /** The draft the PHP below was written from. */
  of: Scenario | null;
  /** Each client's PHP, by its place in the form; null: the form is not a valid scenario; undefined: not checked yet. */
  php: readonly string[] | null | undefined;
}

export const useChecked = create<CheckedState>()(() => ({ of: null, php: undefined }));

/** The check loads with the first form, not with the page: the lab's first screen does without it. */
let checker: Promise<typeof import('../../sim/scenario/normalize.js')> | undefined;
/** The draft waiting to be checked; only the latest one is. */
let waiting: Scenario | null = null;

/**
 * Checks `draft` once the browser has drawn the edit that made it, so typing
 * shows at once in a large form; edits made before the check runs are
 * checked together, as the last of them.
 */
export function checkDraft(draft: Scenario): void {
  if (useChecked.getState().of === draft) return;
  const scheduled = waiting !== null;
  waiting = draft;
  if (scheduled) return;
  checker ??= import('../../sim/scenario/normalize.js');
  requestAnimationFrame(() =>
    setTimeout(() => {
      void checker!.then(({ normalizeScenario }) => {
        const d = waiting;
        waiting = null;
        if (d === null || useChecked.getState().of === d) return;
        tally('sandbox-check');
        let php: string[] | null;
        try {
          const valid = normalizeScenario(d, 'sandbox');
          php = valid.clients.map((c) => clientPhp(valid, c));
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          php = null;
        }
        useChecked.setState({ of: d, php });
      });
    }, 0),
  );
}

/** One client's PHP: a string, so a card whose PHP an edit left as it was is not drawn again. */
export const phpOf =
  (index: number) =>
  (s: CheckedState): string | null | undefined =>
    s.php === undefined || s.php === null ? s.php : s.php[index];
