/*
 * Choices the browser keeps between visits (the theme, whether the clients'
 * code is open), under `locklab.<name>`. Storage may be disabled: then
 * nothing is recalled, and a choice lasts for this visit only.
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
    // Disabled storage: the choice lasts for this visit only.
  }
}
