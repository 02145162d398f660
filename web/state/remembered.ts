/*
 * What the browser keeps between visits (the theme, whether the clients'
 * code is open, the learner's progress), under `locklab.<name>`. Storage may
 * be disabled or full: then nothing is recalled, and what is remembered
 * lasts for this visit only.
 */

export function recall(name: string): string | null {
  try {
    return localStorage.getItem(`locklab.${name}`);
  } catch {
    return null;
  }
}

export function remember(name: string, value: string): void {
  try {
    localStorage.setItem(`locklab.${name}`, value);
  } catch {
    // Disabled or full storage: it lasts for this visit only.
  }
}

export function forget(name: string): void {
  try {
    localStorage.removeItem(`locklab.${name}`);
  } catch {
    // Disabled storage: a value it holds is ignored again next time.
  }
}
