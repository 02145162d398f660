import { getTrace, registerTrace } from './state/traces.js';
import { useUi } from './state/ui.js';
import { sim } from './worker/client.js';
import { showPrimary } from './state/session.js';
import { tallies } from './tallies.js';

/**
 * A small handle on the running lab for the browser tests and the bench:
 * run a scenario in the page's worker and read its hash, show a trace,
 * drive the playhead. It exposes nothing the UI cannot do.
 */
export interface LocklabHandle {
  ui: typeof useUi;
  /** Runs a built-in (or a raw scenario) in the worker and returns the trace's sha256 and size. */
  run(
    scenario: { builtin: string } | { raw: unknown; sourceName: string },
    seed: number | null,
    overrides?: string[],
  ): Promise<{ hash: string; events: number; workMs: number }>;
  /** Runs a scenario and shows it as the primary trace; resolves when its timeline has painted, with the render time. */
  show(
    scenario: { builtin: string } | { raw: unknown; sourceName: string },
    seed: number | null,
  ): Promise<{ events: number; modelMs: number; renderMs: number }>;
  /** The current primary trace's hash, for checking what is on screen. */
  primaryHash(): string | null;
  /** How many times parts of the page did their work (see tallies.ts). */
  tallies(): Record<string, number>;
}

declare global {
  interface Window {
    __locklab?: LocklabHandle;
  }
}

const nextPaint = () => new Promise<void>((r) => requestAnimationFrame(() => setTimeout(r, 0)));

export function exposeTestHooks(): void {
  window.__locklab = {
    ui: useUi,
    async run(scenario, seed, overrides = []) {
      const t = await sim().run(scenario, seed, overrides);
      return { hash: t.hash, events: t.doc.events.length, workMs: t.workMs };
    },
    async show(scenario, seed) {
      const p = await sim().run(scenario, seed, []);
      const started = performance.now();
      const t = registerTrace({ label: 'bench', origin: { kind: 'file', fileName: 'bench' }, ...p });
      const modelMs = performance.now() - started;
      showPrimary(t);
      useUi.getState().set({ view: 'lab' });
      await nextPaint();
      return { events: p.doc.events.length, modelMs, renderMs: performance.now() - started };
    },
    primaryHash: () => getTrace(useUi.getState().primaryId)?.hash ?? null,
    tallies,
  };
}
