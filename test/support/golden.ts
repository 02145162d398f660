import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * Golden values kept in a JSON file beside the tests. A missing entry is
 * written when run locally and fails under CI (as d3-axis does with its SVG
 * snapshots); UPDATE_GOLDEN=1 rewrites entries after an intended change.
 */
export class Golden<T> {
  private readonly values: Record<string, T>;
  private dirty = false;

  constructor(private readonly file: string) {
    this.values = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Record<string, T>) : {};
  }

  expect(name: string, actual: T, hint: string): void {
    const update = process.env.UPDATE_GOLDEN === '1';
    if (!(name in this.values) || update) {
      if (process.env.CI !== undefined && !update)
        throw new Error(`golden value "${name}" is missing from ${this.file}; run the tests locally to write it, then commit it`);
      this.values[name] = actual;
      this.dirty = true;
      return;
    }
    expect(actual, `${name} changed; if intended, rerun with UPDATE_GOLDEN=1. ${hint}`).toEqual(this.values[name]);
  }

  save(): void {
    if (!this.dirty) return;
    const sorted = Object.fromEntries(Object.entries(this.values).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(this.file, `${JSON.stringify(sorted, null, 2)}\n`);
  }
}
