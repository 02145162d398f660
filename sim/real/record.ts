// `npm run record-real`: plays every story that has a real counterpart on
// real servers, with Locklab's own clients and with Symfony Lock where it
// has the store, and writes the traces the lab's Compare opens beside the
// simulation: recorded/<name>.json and recorded/index.json.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serializeTrace } from '../trace/io.js';
import type { ClientLibrary } from './ipc.js';
import { serverNeeds } from './nodes.js';
import { REAL_STORIES, storyScenario } from './stories.js';
import { PACKAGE_ROOT } from './paths.js';
import { runReal } from './runner.js';
import { serverVersion, symfonyVersion } from './versions.js';

const out = join(PACKAGE_ROOT, 'recorded');

export interface RecordedEntry {
  readonly scenario: string;
  readonly sets: readonly string[];
  readonly client: ClientLibrary;
  readonly file: string;
  /** "recorded on Redis 7.0.15 with Symfony Lock 5.4.x" */
  readonly recordedOn: string;
  readonly outcome: string;
  readonly recordedAt: string;
}

async function main(): Promise<void> {
  mkdirSync(out, { recursive: true });
  // With names (`npm run record-real -- memcached-restart`), only those are recorded again; the index keeps the rest.
  const only = process.argv.slice(2);
  const jobs = REAL_STORIES.flatMap((s) => s.libraries.map((library) => ({ ...s, library }))).filter((j) => only.length === 0 || only.includes(j.scenario));
  const indexFile = join(out, 'index.json');
  const entries: RecordedEntry[] =
    only.length === 0 || !existsSync(indexFile)
      ? []
      : (JSON.parse(readFileSync(indexFile, 'utf8')) as RecordedEntry[]).filter((e) => !only.includes(e.scenario));
  // Asked once, before any run: asking a program its version blocks this process, and runs are timing-sensitive.
  const versions = new Map((['redis', 'memcached', 'postgres', 'zookeeper', 'etcd'] as const).map((k) => [k, serverVersion(k)]));
  const symfony = symfonyVersion();
  // A few at a time: each run is timing-sensitive.
  for (let i = 0; i < jobs.length; i += 4) {
    await Promise.all(
      jobs.slice(i, i + 4).map(async (j) => {
        const sets = j.sets ?? [];
        const scenario = storyScenario(j.scenario, sets);
        const doc = await runReal(scenario, { library: j.library });
        const file = `${j.scenario}${sets.length === 0 ? '' : `--${sets.join('--').replace(/[^\w.=-]/g, '_')}`}-${j.library}.json`;
        writeFileSync(join(out, file), serializeTrace(doc));
        const servers = [...new Set(serverNeeds(scenario).map((n) => versions.get(n.server)!))].join(', ');
        entries.push({
          scenario: j.scenario,
          sets,
          client: j.library,
          file,
          recordedOn: `recorded on ${servers} with ${j.library === 'symfony' ? symfony : "Locklab's own lock code"}`,
          outcome: doc.verdict.outcome,
          recordedAt: new Date().toISOString().slice(0, 10),
        });
        process.stderr.write(`recorded ${file}: ${doc.verdict.outcome}\n`);
      }),
    );
  }
  entries.sort((a, b) => a.file.localeCompare(b.file));
  writeFileSync(indexFile, `${JSON.stringify(entries, null, 2)}\n`);
}

await main();
