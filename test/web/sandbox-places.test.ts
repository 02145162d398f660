import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILTIN_SCENARIOS } from '../../sim/scenarios/index.js';
import { normalizeScenario } from '../../sim/scenario/normalize.js';
import { CLIENT_FIELDS, formPlace } from '../../web/sandbox/words.js';

/*
 * The Sandbox names a problem by the field it is in, in the form's words
 * (formPlace). Those words are kept beside the form, not in it: each must be
 * a label the form really shows, or a problem would be placed under a field
 * nobody can find.
 */

const root = new URL('../..', import.meta.url).pathname;
const formSources = [
  ...readdirSync(join(root, 'web/sandbox'))
    .filter((f) => f.endsWith('.tsx'))
    .map((f) => join(root, 'web/sandbox', f)),
  join(root, 'web/views/SandboxView.tsx'),
]
  .map((f) => readFileSync(f, 'utf8'))
  .join('\n');

describe("the Sandbox's places for problems", () => {
  it('name only labels the form shows', () => {
    for (const label of Object.values(CLIENT_FIELDS)) expect(formSources, label).toContain(`label="${label}"`);
    const scenario = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'pause-past-expiry');
    const paths = [
      'name',
      'summary',
      'seed',
      'budget.maxTimeMs',
      'budget.maxEvents',
      'resource.machine',
      'resource.fencing',
      'network.latencyMinMs',
      'network.latencyMaxMs',
      'network.distribution',
      'network.loss',
      'machines[0].clockOffsetMs',
      'machines[0].clockDriftPpm',
    ];
    for (const path of paths) {
      const place = formPlace(scenario, path);
      expect(place, path).toBeDefined();
      expect(formSources, path).toContain(`label="${place!.split(' › ').at(-1)!}"`);
    }
    expect(formPlace(scenario, 'clients[0].acquire.retryDelayMs')).toBe('Client A › Retry delay (ms)');
    expect(formPlace(scenario, 'clients[9].ttlMs')).toBeUndefined();
  });
});
