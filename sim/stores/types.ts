import type { InputIssue } from '../errors.js';
import type { ClientSpec, FaultSpec, Scenario, StoreSpecBase } from '../scenario/types.js';
import type { Endpoint } from '../world/endpoint.js';
import type { World } from '../world/world.js';
import type { Capabilities, LockDriver, LockOp, LockReply } from './protocol.js';

export type * from './protocol.js';

/** A node of a lock store: an endpoint clients talk to, which faults can be aimed at. */
export interface StoreNode extends Endpoint<LockOp, LockReply> {
  /** Stops the node for `downUs`; what survives is the model's business. */
  restart?(downUs: number): void;
}

/** A store as built for one simulated run: its nodes by name and its own faults. */
export interface StoreInstance {
  readonly nodes: ReadonlyMap<string, StoreNode>;
  /** Applies a store-specific fault (one of the kind's `faults`); `index` numbers it in the scenario. */
  fault?(f: FaultSpec, index: number): void;
}

/** Context for a store kind's validation: the rest of the scenario and where to report problems. */
export interface StoreCheck {
  readonly scenario: Omit<Scenario, 'store'>;
  readonly path: string;
  readonly issues: InputIssue[];
}

/**
 * A store kind: its row of the capability table, its JSON Schema branch, its
 * defaults and checks, and how to build it. Adding a store is adding one of
 * these to the registry; the kernel never changes.
 */
export interface StoreKind {
  readonly kind: string;
  readonly title: string;
  readonly capabilities: Capabilities;
  /** The built-in scenario that shows this store's classic hazard. */
  readonly hazardScenario: string;
  /** `--set` overrides that put this store into that scenario, when the scenario is written for a sibling kind. */
  readonly hazardSets?: readonly string[];
  /**
   * A minimal valid `store` object on the given machines, for a form that
   * switches kinds. When absent: `{ kind, machine }` on the last machine.
   */
  starter?(machines: readonly string[]): Record<string, unknown>;
  /** Store-specific fault kinds this store understands, besides the generic ones. */
  readonly faults: readonly string[];
  /**
   * The fields a `deploy` may change, each of which the driver honours; a
   * deploy naming any other field is refused (a server's own settings are
   * not the clients' to change).
   */
  readonly deployable?: readonly string[];
  /** Whether the exists-then-set mistake (plain GET then SET) can be made on it. */
  readonly plainGetSet: boolean;
  /** JSON Schema (draft-07) of the `store` object for this kind; `kind` is a const. */
  readonly schema: Record<string, unknown>;
  /** Fills in defaults (the input already passed `schema`) and checks names against the scenario. */
  normalize(input: Record<string, unknown>, check: StoreCheck): StoreSpecBase;
  /** The node names faults may target (per-machine stores need the scenario's machines). */
  nodeNames(spec: StoreSpecBase, scenario?: Omit<Scenario, 'store'>): string[];
  /** Builds the store's nodes in the simulated world. */
  create(world: World, spec: StoreSpecBase, scenario: Scenario): StoreInstance;
  /**
   * The lock library one client uses. It addresses nodes by name and needs no
   * world, so the real runner builds the very same driver.
   */
  driver(spec: StoreSpecBase, client: ClientSpec, scenario: Scenario): LockDriver;
}
