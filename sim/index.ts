/**
 * The public surface of the simulation core (`import … from 'locklab'`):
 * pure, deterministic, with no DOM and no Node built-ins. docs/api.md
 * describes it.
 */

// Running and judging.
export { runScenario } from './run.js';
export { check } from './check/checker.js';
export type { Verdict, DoubleOwnership, StaleWrite, LostLock } from './check/verdict.js';

// Scenarios: the format, its validation and overrides, the built-ins, and a builder.
export { normalizeScenario } from './scenario/normalize.js';
export { scenarioSchema } from './scenario/schema.js';
export { applyOverrides, parseOverride, type Override } from './scenario/set.js';
export { BUILTIN_SCENARIOS, BUILTIN_NAMES } from './scenarios/index.js';
export type { Scenario, ClientSpec, FaultSpec, FaultKind, MachineSpec, StoreSpecBase, RedisSpec, LatencyDistribution } from './scenario/types.js';
export { scenario, ScenarioBuilder } from './testing/builder.js';
export type { ScenarioDocument, ClientOptions, StoreDocument } from './testing/document.js';
export { Run, runDocument, type RunOptions, type RunSource } from './testing/run.js';
export { reproduceCommand } from './reproduce.js';

// Traces: the one contract between the simulator, the checker, the lab and the real runner.
export { validateTrace, serializeTrace, traceHash } from './trace/io.js';
export { describe, describeBelief, toneOf } from './trace/describe.js';
export { TRACE_SCHEMA, type TraceDocument, type TraceEvent, type Belief } from './trace/types.js';
export type { StopInfo, StopReason } from './kernel/kernel.js';

// Stores: the capability table, and the interfaces a store model implements.
export { STORE_TABLE, STORE_KINDS, storeKind, type StoreRow } from './stores/registry.js';
export type {
  StoreKind,
  StoreInstance,
  StoreNode,
  StoreCheck,
  Capabilities,
  LockDriver,
  LockOp,
  LockReply,
  AcquireArgs,
  AcquireResult,
  StepResult,
  LeaseRef,
  ClientIo,
  WriteRequest,
  WriteReply,
} from './stores/types.js';

// The runtime seam: what client code (the lifecycle and the drivers) may ask of the world it runs in.
export { call, sleep, type Runtime, type NodeRef, type Script, type Effect, type OutgoingCall, type CallResult } from './runtime/types.js';

// Errors and input.
export { InputError, formatIssue, type InputIssue } from './errors.js';
export { parseJson } from './json.js';
