// What the browser scenarios share (vscode.test.mjs, job.test.mjs): code-server 4.96.4 (VS Code 1.96.4) started
// with the extension installed into a fresh profile, Debian's Chromium on it (playwright-core), screenshots,
// the command palette and VS Code's error notifications. The configuration ($JOMPD_BROWSER_CONFIG) is written by
// the IT: codeServer (its install directory), vsix, workspace, artifacts (screenshots and logs), chromium, port.
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { chromium } from 'playwright-core';

export const config = JSON.parse(fs.readFileSync(process.env.JOMPD_BROWSER_CONFIG, 'utf8'));
export const artifacts = config.artifacts;
const home = path.join(artifacts, 'home');
const userData = path.join(home, 'user-data');
const extensions = path.join(home, 'extensions');
const entry = path.join(config.codeServer, 'out', 'node', 'entry.js');
const env = { ...process.env, XDG_CONFIG_HOME: path.join(home, 'config'), XDG_DATA_HOME: path.join(home, 'data') };

let server;
let browser;
/** The page of the VS Code workbench, once {@link startVscode} has opened it. */
export let page;
let shot = 0;

/**
 * Installs the .vsix into a fresh profile with {@code settings} added to the quiet defaults, starts code-server on
 * the workspace and opens it in Chromium; resolves once the workbench has settled.
 */
export async function startVscode(settings = {}) {
  fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
  fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
    'security.workspace.trust.enabled': false,
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'telemetry.telemetryLevel': 'off',
    'extensions.autoCheckUpdates': false,
    'extensions.autoUpdate': false,
    'update.mode': 'none',
    ...settings,
  }, null, 2));
  execFileSync('node', [entry, '--user-data-dir', userData, '--extensions-dir', extensions,
    '--install-extension', config.vsix], { env, stdio: 'inherit', timeout: 120_000 });

  const log = fs.openSync(path.join(artifacts, 'code-server.log'), 'w');
  server = spawn('node', [entry, '--auth', 'none', '--bind-addr', `127.0.0.1:${config.port}`, '--disable-telemetry',
    '--disable-update-check', '--disable-workspace-trust', '--user-data-dir', userData, '--extensions-dir', extensions,
    config.workspace], { env, stdio: ['ignore', log, log], detached: true });
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${config.port}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    assert.ok(i < 120, 'code-server did not start within 60 s (see code-server.log)');
    await new Promise((resolve) => setTimeout(resolve, 500));
  }

  browser = await chromium.launch({
    executablePath: config.chromium ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1600, height: 1200 } });
  page.setDefaultTimeout(60_000);
  const consoleLog = fs.createWriteStream(path.join(artifacts, 'browser-console.log'));
  page.on('console', (message) => consoleLog.write(`${message.type()}: ${message.text()}\n`));
  await page.goto(`http://127.0.0.1:${config.port}/?folder=${encodeURIComponent(config.workspace)}`);
  await page.locator('.monaco-workbench').waitFor();
  await page.locator('.statusbar').waitFor();
  await page.waitForTimeout(3000); // extensions activate and the explorer settles
  await screenshot('workbench');
}

/** A last screenshot, then Chromium and code-server (its process group: extension host and what it started) end. */
export async function stopVscode() {
  if (page) await screenshot('end').catch(() => {});
  await browser?.close().catch(() => {});
  if (server?.pid) {
    try {
      process.kill(-server.pid, 'SIGTERM');
    } catch {
      // already gone
    }
  }
}

export async function screenshot(name) {
  shot += 1;
  await page.screenshot({ path: path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`) });
}

/** The error notifications VS Code shows now (toasts and the notification centre's list). */
export async function errorNotifications() {
  return page.$$eval('.notification-list-item', (items) => items
    .filter((item) => item.querySelector('.notification-list-item-icon.codicon-error, .codicon-error'))
    .map((item) => item.querySelector('.notification-list-item-message')?.textContent ?? item.textContent));
}

/** Runs a command from the command palette (F1), the row whose label is the title exactly. */
export async function command(title) {
  // The palette lists the commands VS Code knows when it opens: an extension's contributions can come later
  // on a loaded machine (seen in CI: the palette opened before the extension host had scanned ours), so a
  // palette without the command is closed and opened again.
  for (let attempt = 1; ; attempt++) {
    await page.keyboard.press('F1');
    const input = page.locator('.quick-input-widget .quick-input-box input').first();
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    try {
      await page.locator('.quick-input-list .monaco-list-row .label-name', { hasText: title }).first()
        .waitFor({ timeout: attempt < 5 ? 15000 : 60000 });
      break;
    } catch (notListed) {
      if (attempt >= 5) throw notListed;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(2000);
    }
  }
  await page.waitForTimeout(300); // the list settles (recently used rows first)
  for (let row = 0; row < 10; row++) {
    const focused = (await page.locator('.quick-input-list .monaco-list-row.focused .label-name').first().textContent()) ?? '';
    if (focused.trim() === title) {
      await page.keyboard.press('Enter');
      return;
    }
    await page.keyboard.press('ArrowDown');
  }
  await screenshot('command-not-found');
  assert.fail(`no command palette row "${title}"`);
}
