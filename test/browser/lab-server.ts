import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { build, preview, type PreviewServer } from 'vite';

/*
 * Shared plumbing for the browser tests and the browser bench (no Vitest
 * here, so bench/browser.ts can use it too): build the lab
 * once per source version, serve it on a free loopback port with Vite's
 * preview server, and drive Debian's Chromium with playwright-core. No
 * browser is ever downloaded.
 */

export const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const CHROMIUM_PATH = process.env.LOCKLAB_CHROMIUM ?? '/usr/bin/chromium';
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
export const SCREENSHOTS = join(REPO, 'test-results', 'screenshots');

function filesUnder(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) filesUnder(p, out);
    else out.push(p);
  }
  return out;
}

/** A fingerprint of everything the build reads, so an unchanged lab is not rebuilt by every test file. */
function sourceHash(): string {
  const h = createHash('sha256');
  const files = [
    ...filesUnder(join(REPO, 'web')),
    ...filesUnder(join(REPO, 'sim')),
    ...filesUnder(join(REPO, 'lessons')),
    ...filesUnder(join(REPO, 'docs', 'schema')),
    join(REPO, 'vite.config.ts'),
    join(REPO, 'package-lock.json'),
  ].sort();
  for (const f of files) {
    h.update(relative(REPO, f));
    h.update(readFileSync(f));
  }
  return h.digest('hex').slice(0, 16);
}

/** Builds the lab into a cache directory named by its source hash (once; concurrent callers may race, harmlessly). */
export async function buildLab(): Promise<string> {
  const outDir = join(REPO, 'node_modules', '.cache', 'locklab-web', sourceHash());
  if (existsSync(join(outDir, 'index.html'))) return outDir;
  const tmp = `${outDir}.tmp-${process.pid}`;
  const env = process.env.NODE_ENV;
  // Vitest sets NODE_ENV=test; the lab under test must be the production build users get.
  process.env.NODE_ENV = 'production';
  try {
    await build({
      root: join(REPO, 'web'),
      configFile: join(REPO, 'vite.config.ts'),
      mode: 'production',
      logLevel: 'warn',
      build: { outDir: tmp, emptyOutDir: true },
    });
  } finally {
    process.env.NODE_ENV = env;
  }
  mkdirSync(dirname(outDir), { recursive: true });
  try {
    renameSync(tmp, outDir);
  } catch {
    // Another test file finished the same build first; theirs is identical.
    rmSync(tmp, { recursive: true, force: true });
  }
  return outDir;
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr !== null ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Lab {
  readonly url: string;
  readonly browser: Browser;
  readonly context: BrowserContext;
  /** Errors the pages threw or logged; a test ends by checking there were none. */
  readonly errors: string[];
  page(hash?: string, viewport?: { width: number; height: number }): Promise<Page>;
  close(): Promise<void>;
}

interface Served {
  readonly url: string;
  readonly browser: Browser;
  close(): Promise<void>;
}

/** Serves the built lab on a free loopback port and launches Chromium. */
async function serve(): Promise<Served> {
  const outDir = await buildLab();
  const port = await freePort();
  // The built files need no plugin to be served: without the config (its plugins, the lessons' loader) the server starts in 50 ms, not 1.8 s, once per test file.
  const server: PreviewServer = await preview({
    root: join(REPO, 'web'),
    configFile: false,
    base: './',
    logLevel: 'warn',
    build: { outDir },
    preview: { host: '127.0.0.1', port, strictPort: true },
  });
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, timeout: 30_000 });
  return {
    url: `http://127.0.0.1:${port}/`,
    browser,
    async close() {
      await browser.close().catch(() => undefined);
      await server.close();
    },
  };
}

/** The server and Chromium the test files of one process share (`startLab({ shared: true })`), while Chromium is alive. */
let sharedServed: Promise<Served> | undefined;

async function sharedServe(): Promise<Served> {
  const served = await sharedServed?.catch(() => undefined);
  if (served?.browser.isConnected()) return served;
  await served?.close();
  sharedServed = serve();
  return sharedServed;
}

/**
 * Serves a built lab and opens Chromium on it, in a browser context of its
 * own. With `shared`, the server and Chromium are the ones earlier calls in
 * this process started (the browser test files share one module graph, so
 * each file no longer launches its own Chromium), and `close` closes only
 * the context; they end with the process. A Chromium that has gone is
 * launched again.
 */
export async function startLab(options: { shared?: boolean } = {}): Promise<Lab> {
  const served = options.shared === true ? await sharedServe() : await serve();
  const { url, browser } = served;
  // bypassCSP lets the tests inject axe-core; the lab itself runs under its own policy otherwise.
  const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 }, reducedMotion: 'reduce' });
  context.setDefaultTimeout(10_000);
  const errors: string[] = [];
  return {
    url,
    browser,
    context,
    errors,
    async page(hash = '', viewport) {
      const p = await context.newPage();
      if (viewport !== undefined) await p.setViewportSize(viewport);
      p.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
      p.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`);
      });
      await p.goto(`${url}${hash}`, { timeout: 15_000 });
      // The page's code is a chunk the entry imports, so it may still be loading when the load event fires: wait until it runs.
      await p.waitForFunction(() => window.__locklab !== undefined, undefined, { timeout: 15_000 });
      return p;
    },
    async close() {
      await context.close().catch(() => undefined);
      if (options.shared !== true) await served.close();
    },
  };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true, timeout: 10_000 });
  return path;
}

/** Waits until the lab shows a trace whose timeline has drawn. */
export async function ready(page: Page): Promise<void> {
  await page.locator('figure.timeline svg.timeline-svg').first().waitFor({ state: 'visible', timeout: 15_000 });
}

/** Opens "What the clients run, as PHP" under the stage, unless the learner's last choice left it open (it is remembered). */
export async function openCode(page: Page): Promise<Locator> {
  const code = page.getByTestId('clients-code');
  await code.waitFor();
  if ((await code.getAttribute('open')) === null) await code.locator('summary').click();
  return code;
}

/** Injects axe-core from node_modules and returns its serious and critical violations. */
export async function axeViolations(page: Page, label: string): Promise<string[]> {
  await page.addScriptTag({ path: join(REPO, 'node_modules', 'axe-core', 'axe.min.js') });
  const result = await page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }>;
        };
      }
    ).axe;
    return axe.run(document, { resultTypes: ['violations'] });
  });
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${label}: ${v.id} (${v.impact}) ${v.help} at ${v.nodes
          .slice(0, 3)
          .map((n) => JSON.stringify(n.target))
          .join(', ')}`,
    );
}
