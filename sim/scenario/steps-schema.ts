/*
 * The JSON Schema of a client's `steps`: Symfony Lock's API as a script. Step
 * names are Symfony's method names (acquire, acquireRead, refresh,
 * isAcquired, getRemainingLifetime, isExpired, release) and the few things a
 * PHP script does around them (work, sleep, write, throw, if, repeat, fork).
 * Real-server drivers read the same vocabulary, so it lives in one place.
 */

const STEP_LIST_MAX = 1000;

const stepList = (description: string): Record<string, unknown> => ({
  type: 'array',
  maxItems: STEP_LIST_MAX,
  items: { $ref: '#/definitions/step' },
  description,
});

const acquireFields = (read: boolean): Record<string, unknown> => ({
  blocking: {
    type: 'boolean',
    default: false,
    description: `${read ? 'acquireRead' : 'acquire'}(true): wait in the store when it can block, else poll about every 100 ms (±10 ms) as Symfony does; only a conflict is retried, any other error is thrown.`,
  },
  native: {
    type: 'boolean',
    default: false,
    description: `Call the store's own ${read ? 'waitAndSaveRead' : 'waitAndSave'}() (blocking in the store). On a store that cannot block, PHP raises an Error at run time, recorded in the trace.`,
  },
  retries: {
    type: 'integer',
    minimum: 0,
    maximum: 100000,
    default: 0,
    description: 'A loop around a try acquire: this many further attempts after a refusal or an error, retryDelayMs apart.',
  },
  retryDelayMs: { $ref: '#/definitions/ms', default: 100 },
  waitTimeoutMs: {
    type: ['number', 'null'],
    exclusiveMinimum: 0,
    maximum: 31536000000,
    default: null,
    description: 'Blocking: give up after this long (Symfony 5.4 itself waits for ever; null does that, bounded by the run’s budget).',
  },
  ...(read
    ? {}
    : {
        method: {
          enum: ['atomic', 'exists-then-set'],
          default: 'atomic',
          description: 'exists-then-set is the hand-written mistake: GET, then SET if it was free (stores with plain GET and SET only).',
        },
      }),
  onFailure: {
    enum: ['return', 'next-iteration', 'ignore'],
    default: 'return',
    description:
      'When it returns false: `if (!$lock->acquire()) return;` (return, the script ends), `continue;` in the enclosing repeat (next-iteration), or carry on without the lock (ignore: the mistake of not checking).',
  },
});

const simple = (step: string, description: string, extra: Record<string, unknown> = {}, required: string[] = []): Record<string, unknown> => ({
  type: 'object',
  additionalProperties: false,
  required: ['step', ...required],
  description,
  properties: { step: { const: step }, ...extra },
});

/** The `definitions` the steps add to the scenario schema. */
export const STEP_DEFINITIONS: Record<string, Record<string, unknown>> = {
  steps: stepList('Symfony Lock’s API as a script, run in order by one Lock object of this client.'),
  step: {
    type: 'object',
    required: ['step'],
    discriminator: { propertyName: 'step' },
    oneOf: [
      'acquireStep',
      'acquireReadStep',
      'refreshStep',
      'isAcquiredStep',
      'getRemainingLifetimeStep',
      'isExpiredStep',
      'workStep',
      'sleepStep',
      'writeStep',
      'releaseStep',
      'throwStep',
      'ifStep',
      'repeatStep',
      'forkStep',
    ].map((id) => ({ $ref: `#/definitions/${id}` })),
  },
  acquireStep: simple('acquire', '$lock->acquire($blocking): take the lock exclusively.', acquireFields(false)),
  acquireReadStep: simple(
    'acquireRead',
    '$lock->acquireRead($blocking): take a shared (read) lock; on a store without shared locks Symfony takes an exclusive one.',
    acquireFields(true),
  ),
  refreshStep: simple('refresh', '$lock->refresh($ttl): extend the lease, by the lock’s TTL or by ttlMs.', {
    ttlMs: { type: ['number', 'null'], exclusiveMinimum: 0, maximum: 31536000000, default: null, description: 'null: the client’s ttlMs.' },
  }),
  isAcquiredStep: simple('isAcquired', '$lock->isAcquired(): asks the store whether it still holds our token.'),
  getRemainingLifetimeStep: simple('getRemainingLifetime', '$lock->getRemainingLifetime(): the lease left by the client’s own clock (null without expiry).'),
  isExpiredStep: simple('isExpired', '$lock->isExpired(): whether the lease ran out by the client’s own clock.'),
  workStep: simple(
    'work',
    'Work inside (or outside) the critical section for durationMs, by the client’s own clock.',
    {
      durationMs: { $ref: '#/definitions/ms' },
      refreshEveryMs: {
        type: ['number', 'null'],
        exclusiveMinimum: 0,
        maximum: 31536000000,
        default: null,
        description: 'Call refresh() this often while working (a heartbeat); null never does.',
      },
    },
    ['durationMs'],
  ),
  sleepStep: simple('sleep', 'usleep(): wait durationMs doing nothing (not counted as work).', { durationMs: { $ref: '#/definitions/ms' } }, ['durationMs']),
  writeStep: simple('write', 'Write to the protected resource, with the fencing token if the store gave one; a rejected or unanswered write throws.'),
  releaseStep: simple('release', '$lock->release(): delete the key if it still holds our token; quiet when the lock was already lost.', {
    method: {
      enum: ['token-checked', 'plain-del'],
      default: 'token-checked',
      description: 'plain-del is the hand-written mistake: DEL without comparing the token.',
    },
  }),
  throwStep: simple('throw', 'throw new \\RuntimeException(): an exception inside the critical section (see what a finally is for).', {
    message: { type: 'string', minLength: 1, maxLength: 200, default: 'an exception inside the critical section' },
  }),
  ifStep: {
    type: 'object',
    additionalProperties: false,
    required: ['step', 'condition'],
    description: 'if (condition) { then } else { else }: at least one branch is needed.',
    properties: {
      step: { const: 'if' },
      condition: { $ref: '#/definitions/condition' },
      then: stepList('Run when the condition holds.'),
      else: stepList('Run when it does not.'),
    },
  },
  condition: {
    type: 'object',
    additionalProperties: false,
    minProperties: 1,
    maxProperties: 1,
    description: 'Exactly one test: isExpired() or isAcquired() equal to the value given, or getRemainingLifetime() below remainingLifetimeBelowMs.',
    properties: {
      isExpired: { type: 'boolean' },
      isAcquired: { type: 'boolean' },
      remainingLifetimeBelowMs: {
        $ref: '#/definitions/ms',
        description: 'getRemainingLifetime() < this; as in PHP, a lock without expiry (null) counts as below.',
      },
    },
  },
  repeatStep: {
    type: 'object',
    additionalProperties: false,
    required: ['step', 'steps'],
    description: 'A loop body run `times` times. With `finally` each pass is try { steps } finally { finally }; times 1 is a plain try block.',
    properties: {
      step: { const: 'repeat' },
      times: { type: 'integer', minimum: 1, maximum: 1000000, default: 1 },
      steps: { ...stepList('The body.'), minItems: 1 },
      finally: stepList('Run after each pass, even when the body threw.'),
      catch: {
        type: 'boolean',
        default: false,
        description: 'Catch what a pass throws and go on with the next (a worker loop’s try/catch); false lets it end the loop and propagate.',
      },
      newLock: {
        type: 'boolean',
        default: false,
        description:
          '$lock = $factory->createLock() at the top of each pass: a new Lock object (and owner token) each time; the previous one is destroyed, which auto-releases it.',
      },
    },
  },
  forkStep: simple(
    'fork',
    'pcntl_fork(): a child process, a copy of this one (with its Lock object), runs `steps` and exits; its Lock is destroyed then, which auto-releases the parent’s lock.',
    { steps: stepList('What the child does before it exits.') },
  ),
};
