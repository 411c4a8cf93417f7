// A driven backend's browser reached directly, without the gateway: for the backend primitives
// the W3C layer does not serve over HTTP itself (a trace's network and page errors). The backend,
// its launch and its contexts are the real ones the gateway uses, with config/default.json's
// settings; only the pool and the server are left out.
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Backend, BackendEnvironment, BrowserProcess, DrivenBrowser } from '../../backends/backend.ts';
import { createNativeBackend } from '../../backends/native/index.ts';
import { createPlaywrightBackend } from '../../backends/playwright/index.ts';
import { letBrowsersThrough, setUpBrowserUser } from '../../backends/policy/index.ts';
import { prepareLaunchers, removeLaunchers } from '../../backends/parent-death.ts';

export type DrivenKind = 'native' | 'native-firefox' | 'playwright-chromium' | 'playwright-firefox';

const DEFAULTS = JSON.parse(readFileSync(fileURLToPath(new URL('../../config/default.json', import.meta.url)), 'utf8')) as {
  native: { binary: string; allowedBinaries: string[]; allowedArgs: string[] };
  playwright: { firefoxBinary: string; allowedFirefoxBinaries: string[] };
  browsers: { user: string | null; sandbox: boolean };
};

export interface DrivenProcess {
  readonly browser: BrowserProcess;
  /** A fresh isolated context (a session's browser), closed with the process if not before. */
  newContext(): Promise<DrivenBrowser>;
  /** Close every context opened here, then the process, then its temporary directory. */
  close(): Promise<void>;
}

/** Launch the browser `kind` names, headless, as the gateway's backend would. */
export async function launchDriven(kind: DrivenKind): Promise<DrivenProcess> {
  const firefox = { binary: DEFAULTS.playwright.firefoxBinary, allowedBinaries: DEFAULTS.playwright.allowedFirefoxBinaries, allowedArgs: [], allowedPrefs: [] };
  // As the gateway does at start: who the browsers run as, and their launchers (in the system's
  // temporary directory: they outlive each test's own, and go when the process ends).
  await setUpBrowserUser(DEFAULTS.browsers);
  await prepareLaunchers(tmpdir(), [DEFAULTS.native.binary, DEFAULTS.playwright.firefoxBinary]);
  process.once('exit', removeLaunchers);
  const backend: Backend =
    kind === 'native' || kind === 'native-firefox'
      ? await createNativeBackend({ ...DEFAULTS.native, firefox })
      : await createPlaywrightBackend({ chromium: DEFAULTS.native, firefox });
  const tempDir = await mkdtemp(join(tmpdir(), 'wdgate-test-driven-'));
  await letBrowsersThrough(tempDir);
  const env: BackendEnvironment = { headless: true, hasDisplay: false, forceCpuPainting: false, exposeExperimentalInterfaces: false, tempDir };
  const capabilities = { browserName: kind.endsWith('firefox') ? 'firefox' : 'chrome' };
  const matched = backend.match(capabilities, env, { backend: backend.name });
  if (!matched.ok) throw new Error(`${kind}: ${matched.reason}`);
  let browser: BrowserProcess;
  try {
    browser = await backend.launch(matched.value, env);
  } catch (e) {
    await rm(tempDir, { recursive: true, force: true });
    throw e;
  }
  const contexts: DrivenBrowser[] = [];
  return {
    browser,
    async newContext() {
      const context = await browser.newContext();
      contexts.push(context);
      return context;
    },
    async close() {
      await Promise.all(contexts.map((c) => c.close()));
      await browser.close();
      await rm(tempDir, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}
