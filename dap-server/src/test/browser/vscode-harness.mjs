// What the browser scenarios share (vscode.test.mjs, sessions.test.mjs, job.test.mjs, programs.test.mjs): code-server 4.96.4 (VS Code 1.96.4) started
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

/** The facts a fixture recorded about itself (key=value lines). */
export function readFactsFile(file) {
  const facts = new Map();
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !line.startsWith('#')) facts.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return facts;
}

/** The OpenMP name prefix of fixture thread k from its facts: "omp 0 · 1/2 · level 2" (team path, number/size, level). */
export function factsName(facts, k) {
  const ancestors = (facts.get(`thread.${k}.ancestors`) ?? '').split(',').filter((a) => a !== '');
  const path = ancestors.slice(0, -1).join('.');
  return `omp ${path ? `${path} · ` : ''}${facts.get(`thread.${k}.thread_num`)}/${facts.get(`thread.${k}.team_size`)}`
    + ` · level ${facts.get(`thread.${k}.level`)}`;
}

/** A view pane by its title (the header shows it in capitals; the DOM has it as written). */
export function pane(title) {
  return page.locator('.pane', { has: page.locator('.pane-header', { hasText: new RegExp(`^\\s*${title}`, 'i') }) });
}

/**
 * Every row of a list (lists render only the rows on screen): scrolls it with the mouse wheel and
 * collects each row's text by its index, and whether its icon is blank (an unknown codicon name leaves the
 * icon's ::before without content).
 */
export async function collectRows(container) {
  const rows = new Map();
  const list = container.locator('.monaco-list').first();
  await page.keyboard.press('Escape'); // a hover left open by an earlier look covers the list
  await list.hover({ force: true });
  // the index of the list's last row, once a row that ends where the list's content ends is on screen (rows may
  // differ in height: a call stack's group of deemphasized frames), else -1
  const lastRowOnScreen = () => list.evaluate((element) => {
    const content = parseFloat(element.querySelector('.monaco-list-rows')?.style.height ?? 'NaN');
    const last = [...element.querySelectorAll('.monaco-list-row')]
      .find((row) => parseFloat(row.style.top) + parseFloat(row.style.height) >= content - 0.5);
    return last ? Number(last.dataset.index) : -1;
  });
  let lastIndex = -1;
  for (let round = 0; round < 20; round++) { // from the top, wherever an earlier look left the list
    if (await container.locator('.monaco-list-row[data-index="0"]').count() > 0) break;
    await page.mouse.wheel(0, -2000);
    await page.waitForTimeout(200);
  }
  for (let round = 0; round < 60; round++) {
    const batch = await container.locator('.monaco-list-row').evaluateAll((elements) => elements.map((row) => {
      const icons = [...row.querySelectorAll('[class*="codicon-"]')]
        .filter((icon) => !icon.closest('.monaco-tl-twistie') && !icon.closest('.actions') && !icon.closest('.monaco-action-bar'));
      const blank = icons.length === 0
        || icons.some((icon) => ['none', '""', ''].includes(getComputedStyle(icon, '::before').content));
      // a tree row's label and description are spans side by side: kept apart by " | " as the lines are
      const name = row.querySelector('.label-name');
      const description = row.querySelector('.label-description');
      const text = name ? [name.textContent, description?.textContent ?? ''].filter((part) => part !== '').join(' | ')
        : row.innerText.replace(/\s*\n\s*/g, ' | ');
      return [Number(row.dataset.index), text, blank,
        Number(row.getAttribute('aria-level') ?? '0'), row.querySelector('.thread') !== null,
        row.getAttribute('aria-label') ?? '', row.getAttribute('aria-expanded')];
    }));
    const before = rows.size;
    // aria-label: a custom view's row has its tooltip there when the tooltip is a string (VS Code 1.96's
    // getAriaLabel), else its label and description
    for (const [index, text, blank, level, thread, aria, expanded] of batch) {
      rows.set(index, { text, blank, level, thread, aria, expanded: expanded === null ? undefined : expanded === 'true' });
    }
    lastIndex = Math.max(lastIndex, await lastRowOnScreen());
    if (lastIndex >= 0 && round > 0 && rows.size === before) break;
    await page.mouse.wheel(0, 120);
    await page.waitForTimeout(200);
  }
  const read = [...rows.entries()].sort((a, b) => a[0] - b[0]);
  assert.ok(lastIndex >= 0, 'the list read down to its last row');
  assert.deepEqual(read.map(([index]) => index), [...Array(lastIndex + 1).keys()], 'every row of the list read');
  return read.map(([, row]) => row);
}


/** Closes what an earlier scenario left open (a dialog, a picker): each scenario stands on its own. */
export async function closeLeftovers() {
  const cancel = page.locator('.monaco-dialog-box .dialog-buttons .monaco-button', { hasText: /^Cancel$/ });
  if (await cancel.count() > 0) await cancel.first().click();
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('Escape');
    await page.waitForTimeout(200);
  }
}

/** Starts the launch.json configuration called {@code name} ("Debug: Select and Start Debugging"). */
export async function startConfiguration(name) {
  await closeLeftovers();
  await command('Debug: Select and Start Debugging');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible' });
  await input.fill(`debug ${name}`); // the command opens quick access with its "debug " prefix
  await page.waitForTimeout(800);
  await screenshot(`start-${name.replace(/[^a-z0-9]+/gi, '-')}`);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
}

/** Ends the session (Stop or Disconnect) if there is one, and waits until the debug toolbar is gone. */
export async function endSession() {
  if (await page.locator('.debug-toolbar:visible').count() === 0) return;
  await page.keyboard.press('Shift+F5');
  await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60_000 });
  await page.waitForTimeout(1000);
}

/** Collapses or expands a view pane by its header, and waits for the workbench to draw it. */
export async function setPaneExpanded(title, expanded) {
  const header = pane(title).locator('.pane-header').first();
  if (((await header.getAttribute('aria-expanded')) === 'true') !== expanded) await header.click();
  await page.waitForTimeout(1000);
}

/** Types {@code line} into the debug console and answers its rows then, in order (the last: the answer to it). */
export async function consoleEvaluate(line) {
  await command('Debug: Focus on Debug Console View');
  const input = page.locator('.repl-input-wrapper .monaco-editor textarea');
  await input.waitFor();
  await input.focus();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
  await page.waitForTimeout(2000);
  const rows = await page.locator('.repl .monaco-list-row').evaluateAll((elements) => elements
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index)).map((row) => row.innerText.trim()));
  return rows;
}
