import type { Step } from '../../scenario/steps.js';
import type { ClientSpec, Scenario, StoreSpecBase } from '../../scenario/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from '../../stores/single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, ExistsResult, LeaseRef, LockDriver, LockOp, LockReply, StepResult } from '../../stores/protocol.js';
import { call, type CallResult, type Script } from '../../runtime/types.js';
import { INVALID_TTL, LOCK_CONFLICTED, LOCK_EXPIRED } from '../../clients/exceptions.js';
import { DEFAULT_INITIAL_TTL_US as SYMFONY_INITIAL_TTL_US } from '../../stores/memcached-driver.js';
import { MemcachedNode } from '../adapters/memcached.js';
import { RedisNode } from '../adapters/redis.js';
import { answer, type NodeAnswer, type NodeCall, type RealNode, type StoreFact } from '../adapters/types.js';
import { UnsupportedScenarioError } from '../nodes.js';
import { PhpDriver, shortClass, type PhpReply, type PhpStore } from './php.js';

/** The store kinds Symfony Lock 5.4 in Debian can run here. */
const SYMFONY_KINDS = ['redis', 'memcached', 'postgres', 'sql', 'combined'];

function phpStore(spec: StoreSpecBase, urls: ReadonlyMap<string, string>, path: string): PhpStore {
  if (!SYMFONY_KINDS.includes(spec.kind)) {
    const why =
      spec.kind === 'zookeeper' || spec.kind === 'zookeeper-recipe'
        ? "Symfony's ZookeeperStore needs the php-zookeeper extension, which Debian does not package"
        : `Symfony Lock has no store for ${spec.kind} here (it runs redis, memcached, postgres, sql and combined stores)`;
    throw new UnsupportedScenarioError(`${path}.kind`, why);
  }
  if (spec.kind === 'combined') {
    return {
      kind: 'combined',
      strategy: spec.strategy as 'consensus' | 'unanimous',
      stores: (spec.stores as StoreSpecBase[]).map((s, i) => phpStore(s, urls, `${path}.stores[${i}]`)),
    };
  }
  if (spec.kind === 'sql' && spec.database !== 'postgresql') {
    throw new UnsupportedScenarioError(
      `${path}.database`,
      `Symfony's PdoStore runs here on PostgreSQL, whose "now" rounds to the nearest second, not on ${String(spec.database)}: set store.database=postgresql`,
    );
  }
  if (spec.kind === 'sql' && spec.clock === 'client') {
    throw new UnsupportedScenarioError(
      `${path}.clock`,
      "Symfony's PdoStore computes expiry on the database server's clock; a client-clock table is not Symfony (use --client node)",
    );
  }
  const url = urls.get(spec.name);
  if (url === undefined) throw new Error(`no server URL for store node ${spec.name}`);
  return { kind: spec.kind as 'redis' | 'memcached' | 'postgres' | 'sql', url };
}

/** Whether Symfony can play this scenario's store and clients; throws UnsupportedScenarioError naming the field when not. */
export function checkSymfonyStore(scenario: Scenario): void {
  phpStore(scenario.store, new Map(nodeNamesOf(scenario.store).map((n) => [n, 'redis://127.0.0.1:1'])), 'store');
  scenario.clients.forEach((c, i) => checkSymfonyMistakes(c, `clients[${i}]`));
}

/**
 * The mistakes a scenario can ask of Locklab's own clients that Symfony's Lock
 * cannot make: it always takes the key in one atomic step and releases only
 * with its own token. Played by Symfony, such a story would silently become
 * the safe one.
 */
function checkSymfonyMistakes(c: ClientSpec, path: string): void {
  const atomicOnly = 'Symfony Lock takes the key in one atomic step; GET-then-SET is hand-written code (use --client node)';
  const tokenOnly = 'Symfony Lock releases only with its own token; a plain DEL is hand-written code (use --client node)';
  if (c.acquire.method === 'exists-then-set') throw new UnsupportedScenarioError(`${path}.acquire.method`, atomicOnly);
  if (c.release.method === 'plain-del') throw new UnsupportedScenarioError(`${path}.release.method`, tokenOnly);
  const walk = (steps: readonly Step[], at: string): void =>
    steps.forEach((s, j) => {
      const here = `${at}[${j}]`;
      if ((s.step === 'acquire' || s.step === 'acquireRead') && s.method === 'exists-then-set')
        throw new UnsupportedScenarioError(`${here}.method`, atomicOnly);
      if (s.step === 'release' && s.method === 'plain-del') throw new UnsupportedScenarioError(`${here}.method`, tokenOnly);
      if (s.step === 'if') {
        walk(s.then, `${here}.then`);
        walk(s.else, `${here}.else`);
      }
      if (s.step === 'repeat') {
        walk(s.steps, `${here}.steps`);
        walk(s.finally, `${here}.finally`);
      }
      if (s.step === 'fork') walk(s.steps, `${here}.steps`);
    });
  if (c.steps !== null) walk(c.steps, `${path}.steps`);
}

function nodeNamesOf(spec: StoreSpecBase): string[] {
  return spec.kind === 'combined' ? (spec.stores as StoreSpecBase[]).flatMap(nodeNamesOf) : [spec.name];
}

/**
 * The real Symfony Lock as a store node: every lock request becomes a step
 * of the PHP driver (acquire, refresh, release on Symfony's own Lock), and
 * Symfony's answer — a result or the exception it threw — becomes the
 * reply. What its answer proves about the servers is recorded as the store
 * nodes' events; for a Combined store, each server is asked which of them
 * now hold the token.
 */
export class SymfonyNode implements RealNode {
  private readonly php = new PhpDriver();
  /** For a Combined store: each server's own adapter, to see which of them hold the token. */
  private readonly probes: Array<{ node: string; holds: (key: string, owner: string) => Promise<boolean>; adapter: RealNode }>;

  constructor(
    readonly name: string,
    private readonly store: PhpStore,
    private readonly spec: StoreSpecBase,
    private readonly resource: string,
    private readonly client: string,
    urls: ReadonlyMap<string, string>,
  ) {
    this.probes =
      spec.kind === 'combined'
        ? (spec.stores as StoreSpecBase[]).map((s) => {
            if (s.kind === 'memcached') {
              const m = new MemcachedNode(s.name, urls.get(s.name)!);
              return {
                node: s.name,
                adapter: m,
                holds: async (key: string, owner: string) => (await m.handle({ op: 'get', key }, { client: this.client, msg: 0 })).reply.holder === owner,
              };
            }
            const r = new RedisNode(s.name, urls.get(s.name)!);
            return { node: s.name, adapter: r, holds: (key: string, owner: string) => r.holds(key, owner) };
          })
        : [];
  }

  async open(): Promise<void> {
    await Promise.all(this.probes.map((p) => p.adapter.open().catch(() => undefined)));
    await this.php.open(this.store, this.resource, this.client);
  }

  /** The store nodes that hold `owner`'s token now: the one node, or those of a Combined store that answer so. */
  private async holders(key: string, owner: string): Promise<string[]> {
    if (this.probes.length === 0) return [this.spec.name];
    const seen = await Promise.all(
      this.probes.map(async (p) =>
        (await p.adapter.handle({ op: 'get', key }, { client: this.client, msg: 0 }).catch(() => undefined))?.reply.holder === owner ? p.node : undefined,
      ),
    );
    return seen.filter((n): n is string => n !== undefined);
  }

  private failure(r: PhpReply): NodeAnswer {
    const e = r.exception!;
    const reply = { ok: false, error: `${shortClass(e)}: ${e.message}${e.previous === undefined ? '' : ` (${e.previous})`}` };
    return answer({ ...reply, symfony: { chain: e.chain ?? [shortClass(e)], root: e.root ?? e.message } } as SymfonyReply);
  }

  async handle(req: LockOp | { op: 'close' }, _call: NodeCall): Promise<NodeAnswer> {
    switch (req.op) {
      case 'acquire': {
        const step = req.shared === true ? 'acquireRead' : 'acquire';
        const r = await this.php.step(step, req.owner, { ttl: req.ttlUs / 1_000_000, blocking: req.waitUs !== undefined });
        if (!r.ok) return this.acquireFailure(r, req.key, req.owner);
        if (r.result !== true) return answer({ ok: false, holder: null });
        const nodes = await this.holders(req.key, req.owner);
        return answer({ ok: true }, ...nodes.map((node) => this.fact(node, 'lock.granted', req.key, req.owner, req.ttlUs)));
      }
      case 'refresh': {
        const r = await this.php.step('refresh', req.owner, { ttl: req.ttlUs / 1_000_000 });
        if (!r.ok) {
          const f = this.failure(r);
          // Extended, then found expired by the client's clock: Symfony deleted the key before throwing.
          if (chainOf(f).includes(LOCK_EXPIRED))
            return answer(f.reply, ...nodeNamesOf(this.spec).map((node) => this.fact(node, 'lock.released', req.key, req.owner)));
          return f;
        }
        const nodes = await this.holders(req.key, req.owner);
        return answer({ ok: true }, ...nodes.map((node): StoreFact => ({ node, kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs })));
      }
      case 'exists': {
        const r = await this.php.step('isAcquired', req.owner);
        if (!r.ok) return this.failure(r);
        return answer({ ok: r.result === true });
      }
      case 'release':
      case 'del': {
        // Which nodes held it before: Symfony's release returns quietly either way, and a lock already lost is a quiet release.
        const before = await this.php.step('isAcquired', req.owner);
        const nodes = before.ok && before.result === true ? await this.holders(req.key, req.owner) : [];
        const r = await this.php.step('release', req.owner);
        if (!r.ok) return this.failure(r);
        if (nodes.length === 0) return answer({ ok: false, holder: null });
        return answer({ ok: true }, ...nodes.map((node): StoreFact => ({ node, kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' })));
      }
      case 'close':
        // The end of the PHP script: its connections close with it (an advisory lock's session ends; the observer sees it go).
        await this.php.close();
        return answer({ ok: true });
      case 'get':
      case 'set':
        return answer({ ok: false, error: `Symfony's Lock has no plain ${req.op}` });
    }
  }

  /**
   * An acquire that threw. A TTL under a second (Memcached, PDO) is refused
   * after the key was saved with the store's initial TTL, so the key stays;
   * a lease that ran out in flight was saved, then deleted by Lock itself.
   */
  private async acquireFailure(r: PhpReply, key: string, owner: string): Promise<NodeAnswer> {
    const f = this.failure(r);
    const chain = chainOf(f);
    if (chain.includes(INVALID_TTL)) {
      const nodes = await this.holders(key, owner);
      return answer(f.reply, ...nodes.map((node) => this.fact(node, 'lock.granted', key, owner, SYMFONY_INITIAL_TTL_US)));
    }
    if (chain.includes(LOCK_EXPIRED)) {
      return answer(
        f.reply,
        ...nodeNamesOf(this.spec).flatMap((node) => [this.fact(node, 'lock.granted', key, owner, undefined), this.fact(node, 'lock.released', key, owner)]),
      );
    }
    return f;
  }

  private fact(node: string, kind: 'lock.granted' | 'lock.released', key: string, owner: string, ttlUs?: number): StoreFact {
    if (kind === 'lock.released') return { node, kind, key, owner, reason: 'deleted by Lock: the lease ran out in flight' };
    return { node, kind, key, owner, ttlUs, data: { library: 'symfony' } };
  }

  /** A step the lifecycle does not use, for tests: isAcquired, getRemainingLifetime, isExpired. */
  ask(step: 'isAcquired' | 'getRemainingLifetime' | 'isExpired', owner: string): Promise<PhpReply> {
    return this.php.step(step, owner);
  }

  async close(): Promise<void> {
    await this.php.close();
    await Promise.all(this.probes.map((p) => p.adapter.close()));
  }
}

/** What the Symfony node adds to a failed reply: the exception's chain of classes and its innermost message. */
type SymfonyReply = LockReply & { readonly symfony?: { readonly chain: readonly string[]; readonly root: string } };

function chainOf(a: { reply: LockReply }): readonly string[] {
  return (a.reply as SymfonyReply).symfony?.chain ?? [];
}

function symfonyOf(r: CallResult<LockReply>): { chain: readonly string[]; root: string } | undefined {
  return r.status === 'reply' ? (r.reply as SymfonyReply).symfony : undefined;
}

/**
 * The lock library of a Symfony client: one request per Lock method to the
 * Symfony node, which calls it on Symfony's own Lock, and Symfony's answer
 * or exception turned back into the driver's result. The script around it
 * (retries, polling every 100 ms like Lock::acquire(true), the checks by the
 * client's clock, the destructor's release, work, writes) is the
 * simulation's, so the two can be compared step for step.
 */
export class SymfonyDriver implements LockDriver {
  constructor(
    private readonly node: string,
    private readonly expires: boolean,
    /** The Symfony store class and the exception its client library throws, as the store's own driver names them. */
    readonly library: { readonly store: string; readonly exception: string },
  ) {}

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op: LockOp = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs, waitUs: a.waitUs, shared: a.shared };
    const data = a.waitUs === undefined ? { attempt: a.attempt, library: 'symfony' } : { attempt: a.attempt, waitUs: a.waitUs ?? -1, library: 'symfony' };
    const r = yield* io.request(
      { name: this.node },
      op,
      'acquire.request',
      { owner: a.owner, ttlUs: this.expires ? a.ttlUs : undefined, data },
      waitTimeoutUs(io, a.waitUs),
    );
    const thrown = symfonyOf(r);
    if (thrown?.chain.includes(INVALID_TTL) === true) return { status: 'invalid-ttl', msg: r.msg, reason: thrown.root };
    // The lease ran out in flight: saved, then deleted by Lock. The script sees a lease already over, as the model's check finds it.
    if (thrown?.chain.includes(LOCK_EXPIRED) === true) return { status: 'ok', msg: r.msg, expiresLocalUs: io.localNow() };
    return acquireResult(r, this.expires ? undefined : null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const r = yield* io.request({ name: this.node }, { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs }, 'refresh.request', {
      owner: lease.owner,
      fence: lease.fence,
      ttlUs,
    });
    const thrown = symfonyOf(r);
    if (thrown?.chain.includes(INVALID_TTL) === true) return { status: 'invalid-ttl', msg: r.msg, reason: thrown.root };
    if (thrown?.chain.includes(LOCK_EXPIRED) === true) return { status: 'ok', msg: r.msg, expiresLocalUs: io.localNow() };
    if (thrown?.chain[0] === LOCK_CONFLICTED) return { status: 'failed', msg: r.msg, reason: thrown.root };
    const s = stepResult(r, 'not the owner any more');
    // Any other exception is a store failure Lock wrapped (LockAcquiringException), not a conflict.
    return thrown !== undefined ? { status: 'error', msg: r.msg, reason: thrown.root } : s;
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const r = yield* io.request({ name: this.node }, { op: 'release', key: lease.key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method: 'token-checked' },
    });
    const thrown = symfonyOf(r);
    if (thrown !== undefined) return { status: 'error', msg: r.msg, reason: thrown.root };
    return stepResult(r, 'the key no longer held our token');
  }

  *exists(io: ClientIo, lease: LeaseRef & { readonly shared: boolean }): Script<ExistsResult> {
    const r = yield* io.request({ name: this.node }, { op: 'exists', key: lease.key, owner: lease.owner, shared: lease.shared }, 'isAcquired.request', {
      owner: lease.owner,
    });
    if (r.status !== 'reply') return { status: r.status, msg: r.msg, reason: r.status };
    if (r.reply.error !== undefined) return { status: 'error', msg: r.msg, reason: symfonyOf(r)?.root ?? r.reply.error };
    return { status: r.reply.ok ? 'yes' : 'no', msg: r.msg };
  }

  /** The PHP script ends normally: its input closes and PHP exits, destroying its connections. */
  *close(io: ClientIo): Script<void> {
    yield* call(this.node, { op: 'close' }, io.requestTimeoutUs, io.newMsg());
  }
}

/** The Symfony node of a client, under the store's name. */
export function symfonyNodes(scenario: Scenario, spec: ClientSpec, urls: ReadonlyMap<string, string>): Map<string, RealNode> {
  const store = phpStore(scenario.store, urls, 'store');
  return new Map([[scenario.store.name, new SymfonyNode(scenario.store.name, store, scenario.store, spec.key, spec.name, urls)]]);
}
