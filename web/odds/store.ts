import { create } from 'zustand';
import type { SweepPlan } from '../../sim/odds/plan.js';
import type { SweepReport } from '../../sim/odds/report.js';
import type { Swept } from './source.js';

/** The Odds form's name for the Sandbox's scenario: no built-in has a name with a colon. */
export const SANDBOX = 'sandbox:';

/** The form as typed: strings, checked when the sweep starts. */
export interface OddsForm {
  /** A built-in's name, or SANDBOX for the Sandbox's scenario. */
  scenario: string;
  path1: string;
  spec1: string;
  path2: string;
  spec2: string;
  runs: string;
}

export interface OddsState {
  form: OddsForm;
  running: boolean;
  plan: SweepPlan | null;
  report: SweepReport | null;
  /** The scenario the plan and report are of, as it was when the sweep started. */
  swept: Swept | null;
  elapsedMs: number;
  threads: number;
  /** The combination whose details are shown. */
  selected: number | null;
  error: string | null;
  shrinking: boolean;
  set(p: Partial<Omit<OddsState, 'set' | 'setForm'>>): void;
  setForm(p: Partial<OddsForm>): void;
}

/** The Odds view's state lives outside the view, so a sweep survives a visit to another tab. */
export const useOdds = create<OddsState>()((set) => ({
  form: { scenario: 'pause-past-expiry', path1: 'faults[0].durationMs', spec1: '7000..17000:1000', path2: '', spec2: 'false,true', runs: '1000' },
  running: false,
  plan: null,
  report: null,
  swept: null,
  elapsedMs: 0,
  threads: 0,
  selected: null,
  error: null,
  shrinking: false,
  set: (p) => set(p),
  setForm: (p) => set((s) => ({ form: { ...s.form, ...p } })),
}));
