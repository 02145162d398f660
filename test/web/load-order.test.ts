import { beforeEach, expect, it, vi } from 'vitest';

// The worker's normalize, answered by hand: each call waits until the test resolves it, in whatever order the test likes.
const pending: Array<{ input: unknown; resolve: (s: unknown) => void; reject: (e: unknown) => void }> = [];
vi.mock('../../web/worker/client.js', () => ({
  WorkerInputError: class WorkerInputError extends Error {},
  sim: () => ({
    normalize: (input: unknown) => new Promise((resolve, reject) => pending.push({ input, resolve, reject })),
  }),
}));

const { loadDraft } = await import('../../web/sandbox/load.js');
const { useDraft } = await import('../../web/sandbox/draft.js');

const scenario = (name: string) => ({ name, machines: [], clients: [], faults: [], store: { kind: 'redis' } });

beforeEach(() => {
  pending.length = 0;
  useDraft.setState({ draft: null, clean: null, from: '', issues: null });
});

it('the load asked for last fills the form, even when an earlier one comes back after it', async () => {
  const opening = loadDraft({ builtin: 'pause-past-expiry' }, 'builtin:pause-past-expiry|');
  const blank = loadDraft({ raw: {}, sourceName: 'blank scenario' }, 'blank');
  pending[1]!.resolve(scenario('blank'));
  expect(await blank).toBe(true);
  pending[0]!.resolve(scenario('pause-past-expiry'));
  expect(await opening).toBe(false);
  expect(useDraft.getState().draft?.name).toBe('blank');
  expect(useDraft.getState().from).toBe('blank');
});

it('a refusal of a load that a newer one replaced lists no issues beside the newer scenario', async () => {
  const first = loadDraft({ raw: { bad: true }, sourceName: 'old.json' }, 'file:old.json');
  const second = loadDraft({ raw: {}, sourceName: 'blank scenario' }, 'blank');
  pending[1]!.resolve(scenario('blank'));
  await second;
  pending[0]!.reject(new Error('refused'));
  expect(await first).toBe(false);
  expect(useDraft.getState().issues).toBeNull();
  expect(useDraft.getState().draft?.name).toBe('blank');
});

it('loads in order land in order: the last one wins', async () => {
  const a = loadDraft({ builtin: 'a' }, 'builtin:a|');
  pending[0]!.resolve(scenario('a'));
  expect(await a).toBe(true);
  const b = loadDraft({ builtin: 'b' }, 'builtin:b|');
  pending[1]!.resolve(scenario('b'));
  expect(await b).toBe(true);
  expect(useDraft.getState().draft?.name).toBe('b');
});
