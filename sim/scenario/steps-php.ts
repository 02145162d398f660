import { shorthandSteps } from '../clients/shorthand.js';
import { storeKind } from '../stores/registry.js';
import type { Distribution } from '../kernel/dist.js';
import type { AcquireStep, Condition, Step } from './steps.js';
import type { ClientSpec, Scenario } from './types.js';

/*
 * A client's steps written out as the PHP script they stand for, in the
 * style of docs/scenarios.md: Symfony Lock's calls, `work()` and `write()`
 * for the critical section, and comments for what PHP cannot say (retries,
 * a wait's limit, a drawn duration). A client given by lifecycle fields is
 * written from the steps those fields stand for.
 */

const INDENT = '    ';
const LOOP_VARS = ['$i', '$j', '$k', '$l', '$m'];

/** Seconds, as PHP's Symfony calls take them: 30, 1.5, 0.2. */
function seconds(ms: number): string {
  return String(Number((ms / 1000).toFixed(6)));
}

function quote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function condition(c: Condition): string {
  if ('isExpired' in c) return c.isExpired ? '$lock->isExpired()' : '!$lock->isExpired()';
  if ('isAcquired' in c) return c.isAcquired ? '$lock->isAcquired()' : '!$lock->isAcquired()';
  return `$lock->getRemainingLifetime() < ${seconds(c.remainingLifetimeBelowMs)}`;
}

function acquireLines(s: AcquireStep, c: Context): string[] {
  const notes: string[] = [];
  if (s.retries > 0) notes.push(`tried ${s.retries + 1} times, ${seconds(s.retryDelayMs)} s apart`);
  if (s.blocking && s.waitTimeoutMs !== null) notes.push(`gives up after ${seconds(s.waitTimeoutMs)} s`);
  const note = notes.length === 0 ? '' : ` // ${notes.join('; ')}`;
  // PHP cannot leave a finally block with continue: there the next pass is said in words.
  const inWords = s.onFailure === 'next-iteration' && c.inFinally && !c.continueEnds;
  const fail = s.onFailure === 'return' || c.continueEnds ? 'return' : 'continue';
  if (s.method === 'exists-then-set') {
    // Look-then-set is no Symfony call: it is written by hand, against the store's own client.
    const race = 'another client can SET in between';
    if (s.onFailure === 'ignore' || inWords)
      return [`if (${c.look} === false) ${c.set}; // GET, then SET if it looked free: ${race}${note.replace(' //', ';')}`];
    return [`if (${c.look} !== false) ${fail}; // GET first${note.replace(' //', ';')}…`, `${c.set}; // …then SET: ${race}`];
  }
  const call = `$lock->${s.step}(${s.blocking ? 'true' : ''})`;
  if (s.onFailure === 'ignore') return [`${call};${note}`];
  if (inWords) return [`${call}; // on failure, on with the next pass${note.replace(' //', ';')}`];
  return [`if (!${call}) ${fail};${note}`];
}

interface Context {
  readonly key: string;
  readonly ttlMs: number;
  readonly autoRelease: boolean;
  /** How many loops enclose these steps: names the next loop's variable. */
  readonly depth: number;
  /** The steps are the script's last pass with no loop around it, so going on with the next pass ends the script: `return`. */
  readonly continueEnds: boolean;
  /** A release by a plain delete of the key, in the store's own client (Redis or Memcached: the stores that have one). */
  readonly plainDelete: string;
  /** A hand-written acquire: GET the key (`look`), then SET it (`set`) if it looked free. */
  readonly look: string;
  readonly set: string;
  /** The steps run in a finally block of the enclosing loop's pass. */
  readonly inFinally: boolean;
}

/**
 * A line of the PHP, and the step whose start puts a process on it: its
 * place in the client's script (see StepPaths in sim/clients/step-marks.ts),
 * or null for a line no step starts on (a closing brace, a catch).
 */
export interface PhpLine {
  readonly text: string;
  readonly path: string | null;
}

function plain(texts: readonly string[]): PhpLine[] {
  return texts.map((text) => ({ text, path: null }));
}

/** The step at `path` starts on the first of its lines, unless a step nested in it already starts there. */
function startsAt(out: PhpLine[], path: string): PhpLine[] {
  const [first, ...rest] = out;
  return first === undefined || first.path !== null ? out : [{ text: first.text, path }, ...rest];
}

function createLock(c: Context): string {
  return `$lock = $factory->createLock(${quote(c.key)}, ${seconds(c.ttlMs)}${c.autoRelease ? '' : ', autoRelease: false'});`;
}

/** Lines of nested code, four spaces further in. */
function ind(lines: readonly PhpLine[]): PhpLine[] {
  return lines.map((l) => ({ text: INDENT + l.text, path: l.path }));
}

/** The lines of a block of steps whose places start with `at` ("" for the script, "0.s." for the steps of the script's first repeat). */
function lines(steps: readonly Step[], c: Context, at: string): PhpLine[] {
  return steps.flatMap((s, i) => stepLines(s, c, `${at}${i}`));
}

/** A drawn duration in words: "exponential, mean 2 s". */
function drawn(d: Distribution): string {
  switch (d.distribution) {
    case 'fixed':
      return `${seconds(d.ms)} s`;
    case 'exponential':
      return `exponential, mean ${seconds(d.meanMs)} s`;
    case 'uniform':
      return `uniform, ${seconds(d.minMs)} to ${seconds(d.maxMs)} s`;
    case 'long-tail':
      return `long tail, ${seconds(d.minMs)} to ${seconds(d.maxMs)} s`;
  }
}

function stepLines(s: Step, c: Context, path: string): PhpLine[] {
  return startsAt(s.step === 'if' || s.step === 'fork' || s.step === 'repeat' ? blockLines(s, c, path) : plain(leafLines(s, c)), path);
}

function blockLines(s: Extract<Step, { step: 'if' | 'fork' | 'repeat' }>, c: Context, path: string): PhpLine[] {
  switch (s.step) {
    case 'if':
      return [
        ...plain([`if (${condition(s.condition)}) {`]),
        ...ind(lines(s.then, c, `${path}.t.`)),
        ...(s.else.length > 0 ? [...plain(['} else {']), ...ind(lines(s.else, c, `${path}.e.`))] : []),
        ...plain(['}']),
      ];
    case 'fork':
      return [
        ...plain(['if (pcntl_fork() === 0) {']),
        ...ind(lines(s.steps, c, `${path}.k.`)),
        { text: `${INDENT}exit(0);`, path: `${path}.exit` },
        ...plain(['}']),
      ];
    case 'repeat':
      return repeatLines(s, { ...c, continueEnds: false }, path);
  }
}

function leafLines(s: Exclude<Step, { step: 'if' | 'fork' | 'repeat' }>, c: Context): string[] {
  switch (s.step) {
    case 'acquire':
    case 'acquireRead':
      return acquireLines(s, c);
    case 'refresh':
      return [`$lock->refresh(${s.ttlMs === null ? '' : seconds(s.ttlMs)});`];
    case 'isAcquired':
    case 'getRemainingLifetime':
    case 'isExpired':
      return [`$lock->${s.step}();`];
    case 'work': {
      const notes = [
        ...(s.time === undefined ? [] : [`${drawn(s.time)}, drawn afresh each time`]),
        ...(s.refreshEveryMs === null ? [] : [`calling $lock->refresh() every ${seconds(s.refreshEveryMs)} s`]),
      ];
      return [`work(${s.time === undefined ? seconds(s.durationMs) : '…'});${notes.length === 0 ? '' : ` // ${notes.join('; ')}`}`];
    }
    case 'sleep':
      return [sleep(s.durationMs)];
    case 'write':
      return ['write();'];
    case 'release':
      return s.method === 'plain-del' ? [c.plainDelete] : ['$lock->release();'];
    case 'throw':
      return [`throw new \\RuntimeException(${quote(s.message)});`];
    case 'stall':
      return [`if (mt_rand() / mt_getrandmax() < ${s.probability}) gc_pause(); // ${drawn(s.duration)}`];
  }
}

function sleep(ms: number): string {
  return ms % 1000 === 0 ? `sleep(${ms / 1000});` : `usleep(${Math.round(ms * 1000)});`;
}

/** Whether `steps` go on with their repeat's next pass themselves (a nested repeat's passes are its own). */
function continues(steps: readonly Step[]): boolean {
  return steps.some(
    (s) =>
      ((s.step === 'acquire' || s.step === 'acquireRead') && s.onFailure === 'next-iteration') || (s.step === 'if' && (continues(s.then) || continues(s.else))),
  );
}

/**
 * A repeat: a for loop, or a single pass written as a block when it needs no
 * loop (one pass whose `continue`, if any, can be a `return`). `path`: the
 * repeat's place in its script; `think`: the sleep a shorthand client takes
 * before every pass but the first, and the place its line is known by.
 */
function repeatLines(s: Extract<Step, { step: 'repeat' }>, c: Context, path: string, think?: { ms: number; path: string }): PhpLine[] {
  const loop = s.times > 1 || (continues(s.steps) && !c.continueEnds);
  const v = LOOP_VARS[c.depth] ?? `$i${c.depth}`;
  const inner: Context = { ...c, depth: c.depth + (loop ? 1 : 0), continueEnds: !loop && c.continueEnds, inFinally: !loop && c.inFinally };
  // A pass: a fresh Lock object first when asked, then the steps, in try/catch/finally as asked.
  let body = lines(s.steps, inner, `${path}.s.`);
  if (s.finally.length > 0)
    body = [
      ...plain(['try {']),
      ...ind(body),
      ...plain(['} finally {']),
      ...ind(lines(s.finally, { ...inner, inFinally: true }, `${path}.f.`)),
      ...plain(['}']),
    ];
  if (s.catch)
    body = [...plain(['try {']), ...ind(body), ...plain(['} catch (\\Throwable $e) {', `${INDENT}// logged${loop ? '; on with the next pass' : ''}`, '}'])];
  if (s.newLock) body = [{ text: createLock(c), path: `${path}.new` }, ...body];
  if (think !== undefined) body = [{ text: `if (${v} > 0) ${sleep(think.ms)}`, path: think.path }, ...body];
  if (!loop) return body;
  return [...plain([`for (${v} = 0; ${v} < ${s.times}; ${v}++) {`]), ...ind(body), ...plain(['}'])];
}

/**
 * A shorthand client of several iterations is a first pass and then the
 * rest, each after a sleep (sim/clients/shorthand.ts): one loop, as its PHP
 * would be written.
 */
function asOneLoop(steps: readonly Step[]): { loop: Extract<Step, { step: 'repeat' }>; thinkMs: number } | null {
  const [first, rest] = steps;
  if (steps.length !== 2 || first?.step !== 'repeat' || rest?.step !== 'repeat') return null;
  const [think, ...body] = rest.steps;
  if (think?.step !== 'sleep' || JSON.stringify(body) !== JSON.stringify(first.steps)) return null;
  if (first.catch !== rest.catch || first.newLock !== rest.newLock || JSON.stringify(first.finally) !== JSON.stringify(rest.finally)) return null;
  return { loop: { ...first, times: first.times + rest.times }, thinkMs: think.durationMs };
}

/** A client's PHP, line by line, and the line each step of its script starts on. */
export interface ClientPhp {
  readonly lines: readonly PhpLine[];
  /**
   * The line (0-based) a process running this client's script is on when the
   * step at `path` has started (see StepPaths in sim/clients/step-marks.ts),
   * or undefined for a step the PHP has no line of its own for.
   */
  lineOf(path: string): number | undefined;
}

/**
 * A shorthand client's first pass and the rest are one loop in its PHP:
 * where the rest's steps are, in the first pass's places (the rest's steps
 * are its think time, then the first pass's steps).
 */
function onePassPath(path: string): string {
  const loop = /^1(\.new)?$/.exec(path);
  if (loop !== null) return `0${loop[1] ?? ''}`;
  const m = /^1\.(s|f)\.(\d+)(.*)$/.exec(path);
  if (m === null) return path;
  if (m[1] === 'f') return `0.f.${m[2]}${m[3]}`;
  const k = Number(m[2]);
  return k === 0 ? (m[3] === '' ? THINK : path) : `0.s.${k - 1}${m[3]}`;
}

/** The think time's line in a shorthand client's one loop. */
const THINK = 'think';

/** What `client` runs in `scenario`, as PHP lines, each tagged with the step that starts on it. */
export function clientPhpLines(scenario: Scenario, client: ClientSpec): ClientPhp {
  const kind = storeKind(scenario.store.kind);
  const steps = client.steps ?? (kind === undefined ? [] : shorthandSteps(client, kind.capabilities));
  const key = quote(client.key);
  // Only Redis and Memcached have the plain commands these mistakes need (sim/stores: plainGetSet).
  const memcached = scenario.store.kind === 'memcached';
  const plainDelete = memcached
    ? `$memcached->delete(${key}); // a plain delete, whoever holds the key`
    : `$redis->del(${key}); // a plain DEL, whoever holds the key`;
  const look = memcached ? `$memcached->get(${key})` : `$redis->get(${key})`;
  const set = memcached ? `$memcached->set(${key}, $token, ${seconds(client.ttlMs)})` : `$redis->set(${key}, $token, ['px' => ${client.ttlMs}])`;
  const c: Context = {
    key: client.key,
    ttlMs: client.ttlMs,
    autoRelease: client.autoRelease,
    depth: 0,
    continueEnds: false,
    inFinally: false,
    plainDelete,
    look,
    set,
  };
  const merged = client.steps === null ? asOneLoop(steps) : null;
  const body =
    merged !== null
      ? startsAt(repeatLines(merged.loop, c, '0', { ms: merged.thinkMs, path: THINK }), '0')
      : steps.flatMap((s, i) =>
          s.step === 'repeat' ? startsAt(repeatLines(s, { ...c, continueEnds: i === steps.length - 1 }, `${i}`), `${i}`) : stepLines(s, c, `${i}`),
        );
  // A shorthand client makes a new Lock object for each pass; a script written as steps starts with one.
  const first = merged?.loop ?? steps[0];
  const opensWithLock = first?.step === 'repeat' && first.newLock;
  const all = [...(opensWithLock ? [] : plain([createLock(c)])), ...body];
  const index = new Map<string, number>();
  all.forEach((l, i) => {
    if (l.path !== null) index.set(l.path, i);
  });
  return { lines: all, lineOf: (path) => index.get(merged === null ? path : onePassPath(path)) };
}

/** What `client` runs in `scenario`, as PHP: one line per call, nested blocks indented by four spaces. */
export function clientPhp(scenario: Scenario, client: ClientSpec): string {
  return clientPhpLines(scenario, client)
    .lines.map((l) => l.text)
    .join('\n');
}

/** The stores Locklab models that are not Symfony Lock's, and what they are. */
const NOT_SYMFONY: Readonly<Record<string, string>> = {
  redlock: 'Redlock (node-redlock)',
  etcd: "etcd's concurrency Mutex",
  'zookeeper-recipe': 'the ZooKeeper lock recipe',
  'lock-row': 'a hand-written lock table',
};

/** What to say above the PHP of a scenario whose store is not one of Symfony's: the calls then name what its client does. */
export function codeNote(scenario: Scenario): string | null {
  const other = NOT_SYMFONY[scenario.store.kind];
  return other === undefined
    ? null
    : `The store is ${other}, not one of Symfony's: read the calls as what its client does (take the lock, refresh it, release it).`;
}
