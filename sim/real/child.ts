// One scenario client as an OS process of its own: the runner forks it,
// sends it the scenario, and it runs the simulation's lock code against the
// real servers, sending every event back. Stopping it (SIGSTOP) or killing
// it (SIGKILL) stops its timers, its heartbeats and its connections for real.
import { shorthandStepsOf } from '../clients/shorthand.js';
import { StepPaths } from '../clients/step-marks.js';
import { storeKind } from '../stores/registry.js';
import { ClientSession } from './client-session.js';
import { isCut, type FromChild, type ToChild } from './ipc.js';
import { machineClocks } from './runtime/real-runtime.js';
import { RunClock } from './runtime/time.js';
import type { Scenario } from '../scenario/types.js';
import type { WriteReply } from '../world/resource.js';

function send(m: FromChild): void {
  process.send?.(m);
}

let session: ClientSession | undefined;
/** The scenario's partitions by true time: each client applies them itself, by the run's clock, so none starts late. */
let partitions: ReadonlyArray<{ fromUs: number; toUs: number; groups: readonly string[][] }> = [];
const clock = new RunClock(process.hrtime.bigint());
const pendingWrites = new Map<number, (r: WriteReply) => void>();
let machines: ReturnType<typeof machineClocks> = new Map();
let scenarioFaults: Scenario['faults'] = [];

async function setup(m: Extract<ToChild, { t: 'setup' }>): Promise<void> {
  machines = machineClocks(m.scenario.machines);
  scenarioFaults = m.scenario.faults;
  partitions = m.scenario.faults.flatMap((f) =>
    f.kind === 'partition' ? [{ fromUs: f.atMs * 1000, toUs: (f.atMs + f.durationMs) * 1000, groups: f.groups }] : [],
  );
  const urls = new Map(Object.entries(m.urls));
  session = new ClientSession({
    scenario: m.scenario,
    client: m.client,
    urls,
    clock,
    machines,
    msgBase: m.msgBase,
    emit: (e) => send({ t: 'event', e }),
    forward: (_to, request, msg) =>
      new Promise((resolve) => {
        pendingWrites.set(msg, resolve);
        send({ t: 'write', msg, request: request as never });
      }),
    cut: (machine, node) => {
      if (partitions.length === 0) return false;
      const now = clock.nowUs();
      const active = partitions.filter((p) => p.fromUs <= now && now < p.toUs).map((p) => p.groups);
      return active.length > 0 && isCut(active, machine, nodeMachine.get(node) ?? node);
    },
    library: m.library,
  });
  if (m.marks) {
    // The same spec object the session's client runs, so the shorthand's steps are the ones it made (shorthandStepsOf keeps them by spec).
    const spec = m.scenario.clients.find((c) => c.name === m.client)!;
    const paths = new StepPaths(spec.steps ?? shorthandStepsOf(spec, storeKind(m.scenario.store.kind)!.capabilities));
    session.client.onStep = (c, step, phase) => send({ t: 'mark', process: c.name, path: paths.at(step, phase), timeUs: clock.nowUs() });
  }
  const nodeMachine = new Map<string, string>([['resource', m.scenario.resource.machine]]);
  for (const [node, machine] of session.runtime.nodeMachines) nodeMachine.set(node, machine);
  await session.open();
}

process.on('message', (m: ToChild) => {
  switch (m.t) {
    case 'setup':
      setup(m).then(
        () => send({ t: 'ready' }),
        (err: unknown) => send({ t: 'failed', message: err instanceof Error ? err.message : String(err) }),
      );
      return;
    case 'start':
      clock.setOrigin(BigInt(m.originNs));
      // Clock jumps, like partitions, are applied here by the run's clock, so a client's own clock never jumps late.
      for (const f of scenarioFaults) {
        if (f.kind !== 'clock-jump') continue;
        setTimeout(() => machines.get(f.machine)?.jump(clock.nowUs(), f.byMs * 1000), Math.max(0, Math.ceil(f.atMs - clock.nowUs() / 1000)));
      }
      void session!
        .run()
        .then(
          () => send({ t: 'done' }),
          (err: unknown) => send({ t: 'failed', message: err instanceof Error ? (err.stack ?? err.message) : String(err) }),
        )
        .finally(async () => {
          await session!.close().catch(() => undefined);
          process.disconnect?.();
          process.exit(0);
        });
      return;
    case 'written':
      pendingWrites.get(m.msg)?.(m.reply);
      pendingWrites.delete(m.msg);
      return;
  }
});
// The runner going away ends the client too.
process.on('disconnect', () => process.exit(0));
