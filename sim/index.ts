/** The public surface of the simulation core: pure, deterministic, with no DOM and no Node built-ins. */
export { runScenario } from './run.js';
export { check } from './check/checker.js';
export { normalizeScenario } from './scenario/normalize.js';
export { applyOverrides, parseOverride, type Override } from './scenario/set.js';
export { BUILTIN_SCENARIOS, BUILTIN_NAMES } from './scenarios/index.js';
export { validateTrace, serializeTrace, traceHash } from './trace/io.js';
export { describe, describeBelief, toneOf } from './trace/describe.js';
export { InputError, formatIssue } from './errors.js';
export type { Scenario, ClientSpec, FaultSpec } from './scenario/types.js';
export type { TraceDocument, TraceEvent, Belief } from './trace/types.js';
export type { Verdict } from './check/verdict.js';
export { STORE_TABLE, type StoreRow } from './stores/registry.js';
export { parseJson } from './json.js';
