import { STORE_KINDS } from '../stores/registry.js';
import { STEP_DEFINITIONS } from './steps-schema.js';
import { LIMITS, type LimitName } from './limits.js';

/** `maxItems` from a named limit; the `x-limit` annotation lets the error message name it. */
function maxItems(name: LimitName): { maxItems: number; 'x-limit': LimitName } {
  return { maxItems: LIMITS[name], 'x-limit': name };
}

/** `maxLength` from a named limit, annotated as `maxItems` is. */
function maxLength(name: LimitName): { maxLength: number; 'x-limit': LimitName } {
  return { maxLength: LIMITS[name], 'x-limit': name };
}

/** The smallest positive duration: the simulation counts whole microseconds, so anything shorter would silently become 0. */
const RESOLUTION_MS = 0.001;
const YEAR_MS = 31536000000;

/*
 * The scenario schema, built from parts: the core below, one branch per store
 * kind from the registry, one per fault kind. `npm run schema` writes it to
 * docs/schema/scenario.schema.json, and a test keeps that file up to date.
 */

const FAULTS: Record<string, Record<string, unknown>> = {
  pauseFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target', 'durationMs'],
    description: 'The client process stops (a GC pause, SIGSTOP); timers and replies wait until it resumes.',
    properties: {
      kind: {
        const: 'pause',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
      durationMs: {
        $ref: '#/definitions/positiveMs',
      },
    },
  },
  crashFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target'],
    description: 'The client process dies without releasing anything.',
    properties: {
      kind: {
        const: 'crash',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
    },
  },
  storeRestartFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target', 'downMs'],
    description: 'The store node stops, refuses connections for downMs, and comes back with what its persistence kept.',
    properties: {
      kind: {
        const: 'store-restart',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
      downMs: {
        $ref: '#/definitions/ms',
      },
    },
  },
  partitionFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'durationMs', 'groups'],
    description: 'Machines in different groups cannot reach each other; machines in no group reach everyone.',
    properties: {
      kind: {
        const: 'partition',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      durationMs: {
        $ref: '#/definitions/positiveMs',
      },
      groups: {
        type: 'array',
        minItems: 2,
        ...maxItems('maxMachines'),
        items: {
          type: 'array',
          minItems: 1,
          ...maxItems('maxMachines'),
          items: {
            $ref: '#/definitions/name',
          },
        },
      },
    },
  },
  clockJumpFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'machine', 'byMs'],
    description: "The machine's clock steps by byMs (negative: backwards).",
    properties: {
      kind: {
        const: 'clock-jump',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      machine: {
        $ref: '#/definitions/name',
      },
      byMs: {
        type: 'number',
        minimum: -31536000000,
        maximum: 31536000000,
      },
    },
  },
  clockDriftFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'machine', 'driftPpm'],
    description: "From atMs on, the machine's clock runs at a new rate.",
    properties: {
      kind: {
        const: 'clock-drift',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      machine: {
        $ref: '#/definitions/name',
      },
      driftPpm: {
        type: 'number',
        minimum: -100000,
        maximum: 100000,
      },
    },
  },
  latencySpikeFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'durationMs', 'extraMs'],
    description: 'Messages sent during the window take extraMs longer; only those to or from `machines` when given.',
    properties: {
      kind: {
        const: 'latency-spike',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      durationMs: {
        $ref: '#/definitions/positiveMs',
      },
      extraMs: {
        $ref: '#/definitions/ms',
      },
      machines: {
        type: ['array', 'null'],
        minItems: 1,
        ...maxItems('maxMachines'),
        items: {
          $ref: '#/definitions/name',
        },
        default: null,
      },
    },
  },
  evictionFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target'],
    description: 'The store node evicts a key before its expiry (Memcached LRU); key null evicts the least recently used.',
    properties: {
      kind: {
        const: 'eviction',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
      key: {
        type: ['string', 'null'],
        default: null,
      },
    },
  },
  memoryPressureFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target', 'durationMs', 'writesPerSec', 'itemBytes'],
    description: "Other traffic fills the store node's memory for a while, so its LRU evicts items, locks included.",
    properties: {
      kind: {
        const: 'memory-pressure',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
      durationMs: {
        $ref: '#/definitions/positiveMs',
      },
      writesPerSec: {
        type: 'number',
        exclusiveMinimum: 0,
        maximum: 1000000,
      },
      itemBytes: {
        type: 'integer',
        minimum: 1,
        maximum: 1073741824,
      },
    },
  },
  sessionExpiryFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target'],
    description: "The store ends the client's session or lease (ZooKeeper, etcd), as if its heartbeats had stopped.",
    properties: {
      kind: {
        const: 'session-expiry',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
    },
  },
  connectionLossFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'target'],
    description: "The client's TCP connection to the store drops; the client is not told until it next talks to the store.",
    properties: {
      kind: {
        const: 'connection-loss',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      target: {
        $ref: '#/definitions/name',
      },
    },
  },
  lockFileCleanupFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'machine'],
    description:
      'Lock files are deleted on a machine (a tmp cleaner, a reboot that clears a tmpfs): a process still holding a lock keeps it on a file nobody else will open, and the next process creates a new file and a new lock. dir limits it to files under that directory.',
    properties: {
      kind: {
        const: 'lock-file-cleanup',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      machine: {
        $ref: '#/definitions/name',
      },
      dir: {
        type: ['string', 'null'],
        maxLength: 200,
        default: null,
      },
    },
  },
  ipcRemovalFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'machine'],
    description: "systemd's RemoveIPC=yes deletes the machine's semaphores (the user logged out).",
    properties: {
      kind: {
        const: 'ipc-removal',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      machine: {
        $ref: '#/definitions/name',
      },
    },
  },
  deployFault: {
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'atMs', 'clients', 'store'],
    description:
      'A deploy: from atMs the listed clients use the store settings patched with `store` (a new lock directory, key prefix or server), the others keep the old ones.',
    properties: {
      kind: {
        const: 'deploy',
      },
      atMs: {
        $ref: '#/definitions/ms',
      },
      clients: {
        type: 'array',
        minItems: 1,
        ...maxItems('maxClients'),
        items: {
          $ref: '#/definitions/name',
        },
      },
      store: {
        type: 'object',
      },
    },
  },
};

const BASE = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  $id: 'https://locklab.dev/schema/scenario/1.json',
  title: 'Locklab scenario',
  description:
    'Machines, a lock store, clients running the lock lifecycle, and a schedule of faults. Durations are in milliseconds (fields ending in Ms); fractions of a millisecond are allowed and rounded to whole microseconds.',
  type: 'object',
  additionalProperties: false,
  required: ['name', 'machines', 'store', 'clients'],
  properties: {
    $schema: {
      type: 'string',
    },
    name: {
      type: 'string',
      minLength: 1,
      ...maxLength('maxTextChars'),
      description: 'Short identifier, shown in traces and listings.',
    },
    summary: {
      type: 'string',
      ...maxLength('maxTextChars'),
      description: 'One line saying what the scenario shows.',
    },
    seed: {
      $ref: '#/definitions/seed',
      description: 'Default seed; `locklab run --seed` overrides it.',
    },
    budget: {
      type: 'object',
      additionalProperties: false,
      description: 'Every run stops at the first budget it reaches and says which.',
      properties: {
        maxEvents: {
          type: 'integer',
          minimum: 1,
          maximum: LIMITS.maxEvents,
          default: 1000000,
        },
        maxTimeMs: {
          $ref: '#/definitions/positiveMs',
          default: 3600000,
        },
      },
    },
    machines: {
      type: 'array',
      minItems: 1,
      ...maxItems('maxMachines'),
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['name'],
        properties: {
          name: {
            $ref: '#/definitions/name',
          },
          clockOffsetMs: {
            type: 'number',
            minimum: -YEAR_MS,
            maximum: YEAR_MS,
            default: 0,
            description: "How far this machine's clock reads ahead of true time at the start (negative: behind).",
          },
          clockDriftPpm: {
            type: 'number',
            minimum: -100000,
            maximum: 100000,
            default: 0,
            description: 'How fast the clock runs, in parts per million (50 = gains 50 \u00b5s a second).',
          },
        },
      },
    },
    network: {
      type: 'object',
      additionalProperties: false,
      properties: {
        latencyMinMs: {
          $ref: '#/definitions/ms',
          default: 0.5,
          description: 'The fastest a message between two machines can travel.',
        },
        latencyMaxMs: {
          $ref: '#/definitions/ms',
          default: 2,
          description: 'The slowest a message between two machines can travel.',
        },
        distribution: {
          enum: ['uniform', 'normal', 'long-tail'],
          default: 'uniform',
          description:
            'How latencies spread between the two bounds: uniform; normal (centred, σ a sixth of the range); long-tail (mostly near the minimum, a few slow messages up to the maximum; mean a fifth of the range).',
        },
        loss: {
          type: 'number',
          minimum: 0,
          maximum: 1,
          default: 0,
          description: 'Probability that a message between machines is dropped.',
        },
      },
    },
    store: {
      $ref: '#/definitions/store',
    },
    resource: {
      type: 'object',
      additionalProperties: false,
      description: 'The protected storage every client writes to.',
      properties: {
        machine: {
          $ref: '#/definitions/name',
          description: "Defaults to the store's machine.",
        },
        fencing: {
          type: 'boolean',
          default: false,
          description: 'Reject writes whose fencing token is lower than the highest seen.',
        },
      },
    },
    clients: {
      type: 'array',
      minItems: 1,
      ...maxItems('maxClients'),
      items: {
        $ref: '#/definitions/client',
      },
    },
    faults: {
      type: 'array',
      ...maxItems('maxFaults'),
      items: {
        $ref: '#/definitions/fault',
      },
    },
  },
  definitions: {
    name: {
      type: 'string',
      pattern: '^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$',
    },
    seed: {
      type: 'integer',
      minimum: 0,
      maximum: 4294967295,
    },
    ms: {
      type: 'number',
      minimum: 0,
      maximum: 31536000000,
    },
    positiveMs: {
      type: 'number',
      minimum: RESOLUTION_MS,
      maximum: 31536000000,
    },
    distribution: {
      description: 'A duration drawn afresh each time it is used, from a seeded stream.',
      type: 'object',
      required: ['distribution'],
      discriminator: { propertyName: 'distribution' },
      oneOf: [
        {
          type: 'object',
          additionalProperties: false,
          required: ['distribution', 'ms'],
          properties: { distribution: { const: 'fixed' }, ms: { $ref: '#/definitions/ms' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['distribution', 'minMs', 'maxMs'],
          properties: { distribution: { const: 'uniform' }, minMs: { $ref: '#/definitions/ms' }, maxMs: { $ref: '#/definitions/ms' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['distribution', 'meanMs'],
          properties: { distribution: { const: 'exponential' }, meanMs: { $ref: '#/definitions/positiveMs' } },
        },
        {
          type: 'object',
          additionalProperties: false,
          required: ['distribution', 'minMs', 'maxMs'],
          description: 'Mostly near minMs, a few up to maxMs (the mean is a fifth of the way).',
          properties: { distribution: { const: 'long-tail' }, minMs: { $ref: '#/definitions/ms' }, maxMs: { $ref: '#/definitions/ms' } },
        },
      ],
    },
    client: {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'machine'],
      properties: {
        name: {
          $ref: '#/definitions/name',
        },
        machine: {
          $ref: '#/definitions/name',
        },
        startMs: {
          $ref: '#/definitions/ms',
          default: 0,
        },
        key: {
          type: 'string',
          minLength: 1,
          maxLength: 200,
          default: 'job',
        },
        ttlMs: {
          $ref: '#/definitions/positiveMs',
          default: 300000,
          description: "Lease length; 300 s is Symfony's LockFactory default.",
        },
        acquire: {
          type: 'object',
          additionalProperties: false,
          properties: {
            mode: {
              enum: ['try', 'blocking'],
              default: 'try',
              description: 'try: one attempt plus `retries`; blocking: poll every 100 ms (\u00b110 ms) on stores that cannot block.',
            },
            method: {
              enum: ['atomic', 'exists-then-set'],
              default: 'atomic',
              description: 'exists-then-set is the classic mistake: GET, then SET if it was free.',
            },
            retries: {
              type: 'integer',
              minimum: 0,
              maximum: 100000,
              default: 0,
            },
            retryDelayMs: {
              $ref: '#/definitions/ms',
              default: 100,
            },
            waitTimeoutMs: {
              type: ['number', 'null'],
              minimum: RESOLUTION_MS,
              maximum: 31536000000,
              default: null,
              description: "Blocking mode: give up after this long; null waits until the run's budget.",
            },
            shared: {
              type: 'boolean',
              default: false,
              description: 'Take a shared (read) lock, on stores that share; such a client only reads, so set writes to 0.',
            },
            poll: {
              type: 'boolean',
              default: true,
              description: 'Blocking mode on a store that cannot block: poll about every 100 ms as Symfony does (true), or refuse the scenario (false).',
            },
          },
        },
        workMs: {
          $ref: '#/definitions/ms',
          default: 100,
        },
        workTime: {
          $ref: '#/definitions/distribution',
          description: 'Work time drawn afresh for every acquisition (instead of the fixed workMs), e.g. {"distribution": "exponential", "meanMs": 20}.',
        },
        pauseAfterAcquire: {
          type: 'object',
          additionalProperties: false,
          required: ['probability', 'duration'],
          description: 'A random GC pause: after each acquisition, with this probability, the process stops for a duration drawn from `duration`.',
          properties: {
            probability: { type: 'number', minimum: 0, maximum: 1 },
            duration: { $ref: '#/definitions/distribution' },
          },
        },
        crashRatePerS: {
          type: 'number',
          minimum: 0,
          maximum: 1000,
          description: 'Random crashes: the process is killed after a time drawn from an exponential distribution with this rate (0: never).',
        },
        refreshEveryMs: {
          type: ['number', 'null'],
          minimum: RESOLUTION_MS,
          maximum: 31536000000,
          default: null,
          description: 'Refresh the lease this often while working; null never refreshes.',
        },
        checkRemaining: {
          type: 'boolean',
          default: false,
        },
        writes: {
          type: 'integer',
          minimum: 0,
          maximum: 100000,
          default: 1,
        },
        release: {
          type: 'object',
          additionalProperties: false,
          properties: {
            method: {
              enum: ['token-checked', 'plain-del'],
              default: 'token-checked',
              description: 'plain-del is the mistake: DEL without comparing the token.',
            },
            inFinally: {
              type: 'boolean',
              default: true,
              description: 'false: an error skips the release and the lock waits out its TTL.',
            },
          },
        },
        iterations: {
          type: 'integer',
          minimum: 1,
          maximum: 1000000,
          default: 1,
        },
        thinkMs: {
          $ref: '#/definitions/ms',
          default: 0,
        },
        requestTimeoutMs: {
          $ref: '#/definitions/positiveMs',
          default: 1000,
        },
        steps: {
          type: ['array', 'null'],
          items: { $ref: '#/definitions/step' },
          default: null,
          description:
            "Symfony Lock's API as a script of steps (see docs/scenarios.md), instead of the lifecycle fields above; null runs the lifecycle fields.",
        },
        autoRelease: {
          type: 'boolean',
          default: true,
          description:
            "Symfony's autoRelease: the Lock object releases the lock when it is destroyed (the script ends, the process exits normally); false leaves it to its TTL.",
        },
      },
    },
  },
};

/** The schema branch of one fault kind, found by its `kind` constant. */
export function faultSchema(kind: string): { properties: Record<string, { default?: unknown }> } | undefined {
  for (const branch of Object.values(FAULTS)) {
    const props = branch.properties as Record<string, { const?: unknown; default?: unknown }>;
    if (props.kind?.const === kind) return { properties: props };
  }
  return undefined;
}

/** The JSON Schema of a scenario document, with every registered store kind. */
/** The name of a store kind's definition in the scenario schema (`redisStore`, `zookeeperRecipeStore`), which is also its precompiled validator's export name. */
export function storeDefinition(kind: string): string {
  return `${kind.replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}Store`;
}

export function scenarioSchema(): Record<string, unknown> {
  const definitions: Record<string, unknown> = { ...(BASE.definitions as Record<string, unknown>), ...STEP_DEFINITIONS, ...FAULTS };
  const storeRefs: Array<{ $ref: string }> = [];
  for (const k of STORE_KINDS) {
    const id = storeDefinition(k.kind);
    definitions[id] = k.schema;
    storeRefs.push({ $ref: `#/definitions/${id}` });
  }
  definitions.store = { type: 'object', required: ['kind'], discriminator: { propertyName: 'kind' }, oneOf: storeRefs };
  definitions.fault = {
    type: 'object',
    required: ['kind'],
    discriminator: { propertyName: 'kind' },
    oneOf: Object.keys(FAULTS).map((id) => ({ $ref: `#/definitions/${id}` })),
  };
  return { ...BASE, definitions };
}
