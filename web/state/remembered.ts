/*
 * What the browser keeps, under `locklab.<name>`: between visits (the theme,
 * whether the clients' code is open, the learner's progress) in its local
 * storage, and across a reload of one tab (the Sandbox's scenario, where
 * each page was scrolled) in the tab's session storage, which a reload keeps
 * and closing the tab ends. Storage may be disabled or full: then nothing is
 * recalled, and what is remembered lasts for this visit only.
 */

/** Where a value is kept: for every visit of this browser, or for this tab until it closes. */
export type Keeping = 'browser' | 'tab';

// Reading the storage itself throws where the browser disables it (a sandboxed frame, some private modes).
const storageOf = (keeping: Keeping): Storage => (keeping === 'tab' ? sessionStorage : localStorage);

/** The value kept under `name`, or null when there is none or storage cannot be read. */
export function recall(name: string, keeping: Keeping = 'browser'): string | null {
  try {
    return storageOf(keeping).getItem(`locklab.${name}`);
  } catch {
    return null;
  }
}

/** Keeps `value` under `name`; false when the storage refused it (disabled, or full). */
export function remember(name: string, value: string, keeping: Keeping = 'browser'): boolean {
  try {
    storageOf(keeping).setItem(`locklab.${name}`, value);
    return true;
  } catch {
    // Disabled or full storage: it lasts for this visit only.
    return false;
  }
}

export function forget(name: string, keeping: Keeping = 'browser'): void {
  try {
    storageOf(keeping).removeItem(`locklab.${name}`);
  } catch {
    // Disabled storage: a value it holds is ignored again next time.
  }
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Reads a value the lab kept as a JSON object with a `version`: the object,
 * or why it cannot be read, in words a notice can quote ("it is not valid
 * JSON", "it is not `what` of version N").
 */
export function readVersioned(text: string, version: number, what: string): { ok: true; data: Record<string, unknown> } | { ok: false; why: string } {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { ok: false, why: 'it is not valid JSON' };
  }
  if (!isRecord(data) || data.version !== version) return { ok: false, why: `it is not ${what} of version ${version}` };
  return { ok: true, data };
}
