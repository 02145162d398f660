/* A browser's Storage for tests that run under Node. */

/** A Storage as the browser gives it, in memory; `refuse` makes it throw as a disabled or full one does. */
export class MemoryStorage implements Storage {
  items = new Map<string, string>();
  refuse = false;
  get length() {
    return this.items.size;
  }
  key = (i: number) => [...this.items.keys()][i] ?? null;
  clear = () => this.items.clear();
  private check() {
    if (this.refuse) throw new DOMException('The quota has been exceeded.', 'QuotaExceededError');
  }
  getItem = (k: string) => {
    this.check();
    return this.items.get(k) ?? null;
  };
  setItem = (k: string, v: string) => {
    this.check();
    this.items.set(k, v);
  };
  removeItem = (k: string) => {
    this.check();
    this.items.delete(k);
  };
}
