import type { ClientSpec, Scenario, StoreSpecBase } from '../../scenario/types.js';
import { acquireResult, stepResult, waitTimeoutUs } from '../../stores/single-node-driver.js';
import type { AcquireArgs, AcquireResult, ClientIo, LeaseRef, LockDriver, LockOp, StepResult } from '../../stores/protocol.js';
import type { Script } from '../../runtime/types.js';
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

/** Whether Symfony can play this scenario's store; throws UnsupportedScenarioError naming the field when not. */
export function checkSymfonyStore(scenario: Scenario): void {
  phpStore(scenario.store, new Map(nodeNamesOf(scenario.store).map((n) => [n, 'redis://127.0.0.1:1'])), 'store');
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
    return answer({ ok: false, error: `${shortClass(e)}: ${e.message}${e.previous === undefined ? '' : ` (${e.previous})`}` });
  }

  async handle(req: LockOp, _call: NodeCall): Promise<NodeAnswer> {
    switch (req.op) {
      case 'acquire': {
        const r = await this.php.step('acquire', req.owner, { ttl: req.ttlUs / 1_000_000, blocking: req.waitUs !== undefined });
        if (!r.ok) return this.failure(r);
        if (r.result !== true) return answer({ ok: false, holder: null });
        const nodes = await this.holders(req.key, req.owner);
        const facts: StoreFact[] = nodes.map((node) => ({
          node,
          kind: 'lock.granted',
          key: req.key,
          owner: req.owner,
          ttlUs: req.ttlUs,
          data: { library: 'symfony' },
        }));
        return answer({ ok: true }, ...facts);
      }
      case 'refresh': {
        const r = await this.php.step('refresh', req.owner, { ttl: req.ttlUs / 1_000_000 });
        if (!r.ok) return this.failure(r);
        const nodes = await this.holders(req.key, req.owner);
        return answer({ ok: true }, ...nodes.map((node): StoreFact => ({ node, kind: 'lock.refreshed', key: req.key, owner: req.owner, ttlUs: req.ttlUs })));
      }
      case 'release':
      case 'del': {
        // Which nodes held it before: Symfony's release returns quietly either way.
        const before = await this.php.step('isAcquired', req.owner);
        const nodes = before.ok && before.result === true ? await this.holders(req.key, req.owner) : [];
        const r = await this.php.step('release', req.owner);
        if (!r.ok) return this.failure(r);
        return answer({ ok: true }, ...nodes.map((node): StoreFact => ({ node, kind: 'lock.released', key: req.key, owner: req.owner, reason: 'released' })));
      }
      case 'get':
      case 'set':
        return answer({ ok: false, error: `Symfony's Lock has no plain ${req.op}` });
    }
  }

  /** A step the lifecycle does not use, for tests: isAcquired, getRemainingLifetime, isExpired. */
  ask(step: 'isAcquired' | 'getRemainingLifetime' | 'isExpired', owner: string): Promise<PhpReply> {
    return this.php.step(step, owner);
  }

  async close(): Promise<void> {
    this.php.close();
    await Promise.all(this.probes.map((p) => p.adapter.close()));
  }
}

/**
 * The lock library of a Symfony client: one request per operation to the
 * Symfony node, which runs it on Symfony's own Lock. The lifecycle around it
 * (retries, polling every 100 ms like Lock::acquire(true), work, writes) is
 * the simulation's.
 */
export class SymfonyDriver implements LockDriver {
  constructor(
    private readonly node: string,
    private readonly expires: boolean,
  ) {}

  *acquire(io: ClientIo, a: AcquireArgs): Script<AcquireResult> {
    const op: LockOp = { op: 'acquire', key: a.key, owner: a.owner, ttlUs: a.ttlUs, waitUs: a.waitUs };
    const data = a.waitUs === undefined ? { attempt: a.attempt, library: 'symfony' } : { attempt: a.attempt, waitUs: a.waitUs ?? -1, library: 'symfony' };
    const r = yield* io.request(
      { name: this.node },
      op,
      'acquire.request',
      { owner: a.owner, ttlUs: this.expires ? a.ttlUs : undefined, data },
      waitTimeoutUs(io, a.waitUs),
    );
    return acquireResult(r, this.expires ? undefined : null);
  }

  *refresh(io: ClientIo, lease: LeaseRef, ttlUs: number): Script<StepResult> {
    const r = yield* io.request({ name: this.node }, { op: 'refresh', key: lease.key, owner: lease.owner, ttlUs }, 'refresh.request', {
      owner: lease.owner,
      fence: lease.fence,
      ttlUs,
    });
    return stepResult(r, 'not the owner any more');
  }

  *release(io: ClientIo, lease: LeaseRef, _method: 'token-checked' | 'plain-del'): Script<StepResult> {
    const r = yield* io.request({ name: this.node }, { op: 'release', key: lease.key, owner: lease.owner }, 'release.request', {
      owner: lease.owner,
      data: { method: 'token-checked' },
    });
    return stepResult(r, 'not the owner');
  }
}

/** The Symfony node of a client, under the store's name. */
export function symfonyNodes(scenario: Scenario, spec: ClientSpec, urls: ReadonlyMap<string, string>): Map<string, RealNode> {
  const store = phpStore(scenario.store, urls, 'store');
  return new Map([[scenario.store.name, new SymfonyNode(scenario.store.name, store, scenario.store, spec.key, spec.name, urls)]]);
}
