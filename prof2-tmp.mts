import { normalizeScenario } from './sim/scenario/normalize.ts';
import { runJob } from './sim/run.ts';
import { BUILTIN_SCENARIOS } from './sim/scenarios/index.ts';
const s = normalizeScenario(BUILTIN_SCENARIOS['pause-past-expiry'], 'p');
for (let i = 0; i < 3000; i++) runJob(s, i, { hash: false });
const t = performance.now();
for (let i = 0; i < 20000; i++) runJob(s, i, { hash: false });
console.log('runs/s', Math.round(20000 / ((performance.now() - t) / 1000)));
