/**
 * The public surface of the simulation core (`import … from 'locklab'`):
 * pure, deterministic, with no DOM and no Node built-ins. docs/api.md
 * describes it.
 */

// Running and judging.
export { runScenario, runJob, type JobWants, type JobResult } from './run.js';
export { check, Checker, findingsOf } from './check/checker.js';
export { CheckError } from './check/refuse.js';
export { summarize, staleWhy } from './check/summary.js';
export { deriveIntervals, type Intervals, type Holding, type NodeHolding, type BeliefInterval, type OwnershipWindow } from './check/intervals.js';
export type { Verdict, Finding, DoubleOwnership, StaleWrite, StaleCause, LostLock, RefusedHolder } from './check/verdict.js';

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
export { serializeTrace, traceHash } from './trace/io.js';
export { validateTrace } from './trace/validate.js';
export { runHash, canonicalJson, RunHasher } from './trace/hash.js';
export { EVENT_KINDS, KIND_NAMES, kindSpec, type KindSpec, type EventKind, type HoldingEnd, type ActorClass, type EventTone } from './trace/kinds.js';
export { traceSchema } from './trace/schema.js';
export { describe, describeBelief, toneOf } from './trace/describe.js';
export { TRACE_SCHEMA, type TraceDocument, type TraceEvent, type Belief } from './trace/types.js';
export type { KeptTrace } from './trace/kept.js';
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
