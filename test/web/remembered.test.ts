import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forget, recall, remember } from '../../web/state/remembered.js';
import { MemoryStorage } from './memory-storage.js';

/* What the browser keeps, for every visit or for one tab, and nothing thrown where storage is refused. */

let local: MemoryStorage;
let session: MemoryStorage;

beforeEach(() => {
  local = new MemoryStorage();
  session = new MemoryStorage();
  vi.stubGlobal('localStorage', local);
  vi.stubGlobal('sessionStorage', session);
});

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('recall, remember and forget', () => {
  it('keep a value for the browser in local storage, and for the tab in session storage, under locklab.', () => {
    expect(remember('theme', 'dark')).toBe(true);
    expect(remember('theme', 'light', 'tab')).toBe(true);
    expect(local.items.get('locklab.theme')).toBe('dark');
    expect(session.items.get('locklab.theme')).toBe('light');
    expect(recall('theme')).toBe('dark');
    expect(recall('theme', 'tab')).toBe('light');
    forget('theme', 'tab');
    expect(recall('theme', 'tab')).toBeNull();
    expect(recall('theme')).toBe('dark');
  });

  it('recall nothing and say a value was not kept, never throwing, where storage is refused', () => {
    session.items.set('locklab.x', 'kept earlier');
    session.refuse = true;
    expect(recall('x', 'tab')).toBeNull();
    expect(remember('x', 'y', 'tab')).toBe(false);
    expect(() => forget('x', 'tab')).not.toThrow();
    // A browser with no session storage at all.
    vi.stubGlobal('sessionStorage', undefined);
    expect(recall('x', 'tab')).toBeNull();
    expect(remember('x', 'y', 'tab')).toBe(false);
  });
});
