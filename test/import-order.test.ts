import { expect, it } from 'vitest';

// Alone in its file, so nothing else has loaded the registry first.
it('the combined store module can be imported first, before the registry', async () => {
  const combined = await import('../sim/stores/combined.js');
  const { storeKind } = await import('../sim/stores/registry.js');
  expect(typeof combined.combinedKind).toBe('function');
  expect(storeKind('combined')?.capabilities.fencingToken).toBeNull();
});
