// Attach and post-mortem sessions in a real VS Code (code-server 4.96.4 in Chromium), started as a user starts
// them: "Debug: Select and Start Debugging" and a configuration of the workspace's launch.json. Run by
// VscodeBrowserIT#attachAndCoreSessionsInVscode, which writes the configuration ($JOMPD_BROWSER_CONFIG): besides
// the harness's, livePid, liveProgram and liveFacts (a fixture held at its marker), coreFacts (the facts of the
// barrier_straggler core, whose thread 1 waits in libomp's barrier code) and mismatch (the command line's refusal
// of that core with another program).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifacts, closeLeftovers, collectRows, command, config, factsName, page, pane, readFactsFile, screenshot,
  startConfiguration, startVscode, stopVscode } from './vscode-harness.mjs';

/** Every notification shown now (toasts and the centre's list), whatever its severity: their messages. */
async function notifications() {
  return page.$$eval('.notification-list-item', (items) => items
    .map((item) => (item.querySelector('.notification-list-item-message')?.textContent ?? item.textContent).trim()));
}

/** Closes every notification (the next look starts from none). */
async function clearNotifications() {
  await closeLeftovers();
  await command('Notifications: Clear All Notifications');
  await page.waitForTimeout(500);
}

/** The text of a debug toolbar button's action (its aria-label starts with {@code label}). */
function toolbarButton(label) {
  return page.locator(`.debug-toolbar .action-item a.action-label[aria-label^="${label}"]`).first();
}

/** Ends the session (the toolbar's Stop or Disconnect) and waits until the toolbar is gone. */
async function endSession() {
  await page.keyboard.press('Shift+F5');
  await page.locator('.debug-toolbar').first().waitFor({ state: 'hidden', timeout: 60_000 });
  await page.waitForTimeout(1000);
}

/**
 * The call stack's thread rows against the facts: each recorded thread once, named as its facts name it, no other.
 * The call stack is collapsed first (its header's Collapse All): one row per thread, all on screen.
 */
async function assertThreadRows(facts, when) {
  const callStack = pane('Call Stack');
  await callStack.locator('.pane-header').hover();
  await callStack.locator('.pane-header a.action-label[aria-label^="Collapse All"]').first().click();
  await page.waitForTimeout(1000);
  const collected = await callStack.locator('.monaco-list-row').evaluateAll((elements) => elements
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
    .map((row) => ({ text: row.innerText.replace(/\s*\n\s*/g, ' | '), thread: row.querySelector('.thread') !== null })));
  const rows = collected.map((row) => row.text);
  fs.writeFileSync(path.join(artifacts, `call-stack-${when.replace(/[^a-z0-9]+/gi, '-')}.txt`), rows.join('\n'));
  const threadRows = collected.filter((row) => row.thread).map((row) => row.text);
  const expected = [...Array(Number(facts.get('threads'))).keys()].map((k) => factsName(facts, k));
  const named = expected.map((name) => threadRows.filter((row) => row.startsWith(name) && !/^[\d.]/.test(row.slice(name.length))).length);
  assert.deepEqual(named, expected.map(() => 1), `${when}: one call stack row per thread, named ${expected.join('; ')}:\n${rows.join('\n')}`);
  assert.deepEqual(rows, threadRows, `${when}: the rows are the threads, no other:\n${rows.join('\n')}`);
}

/** The OpenMP view's rows, once it shows a picture (not a message). */
async function openMpRows() {
  const view = pane('OpenMP');
  await view.locator('.monaco-list-row', { hasText: /^level 1/ }).first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(2500); // the extension has the open rows fetched again one by one (refetchOpenRows)
  return (await collectRows(view)).map((row) => `${'  '.repeat(Math.max(0, row.level - 1))}${row.text}`);
}

/** The boxes of the Parallel Stacks panel (opened if it is not): each one's threads, frames and place. */
async function parallelStacksBoxes() {
  const webview = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  if (await page.locator('iframe.webview.ready').count() === 0) await command('jompd: Show OpenMP Parallel Stacks');
  await webview.locator('.box').first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  return webview.locator('.box').evaluateAll((elements) => elements.map((box) => ({
    gtids: box.dataset.gtids.split(',').map(Number),
    steps: [...box.querySelectorAll('button.step')].map((step) => step.textContent),
    top: Number(box.dataset.top),
  })));
}

before(async () => {
  await startVscode({ 'debug.console.closeOnEnd': false });
  await page.locator('.activitybar .action-item a[aria-label^="Run and Debug"]').first().click();
  await page.waitForTimeout(1000);
});

after(stopVscode);

test('attach through the process picker stays stopped, with the program\'s threads', async () => {
  const facts = readFactsFile(config.liveFacts);
  await startConfiguration('attach to a process');
  // ${command:pickProcess}: the extension's picker, the user's processes, OpenMP ones first and marked
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Attach to which process?' }).waitFor();
  await rows.first().waitFor();
  await screenshot('process-picker');
  const shown = await rows.evaluateAll((elements) => elements
    .sort((a, b) => Number(a.dataset.index) - Number(b.dataset.index))
    .map((row) => row.querySelector('.label-description')?.textContent ?? ''));
  const firstPlain = shown.findIndex((description) => !/ · OpenMP \(/.test(description));
  assert.ok(firstPlain !== 0, `the first rows run OpenMP (the held fixture does):\n${shown.join('\n')}`);
  assert.ok(firstPlain < 0 || shown.slice(firstPlain).every((description) => !/ · OpenMP \(/.test(description)),
    `OpenMP processes before the others:\n${shown.join('\n')}`);
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.fill(`pid ${config.livePid} `);
  await page.waitForTimeout(800);
  const fixtureRow = rows.filter({ has: page.locator('.label-description', { hasText: new RegExp(`^pid ${config.livePid} · OpenMP \\(lib(omp|gomp)\\.so[^)]*\\)$`) }) });
  await fixtureRow.first().waitFor();
  const row = await fixtureRow.first().innerText();
  assert.equal((await fixtureRow.first().locator('.label-name').first().textContent()).trim(), path.basename(config.liveProgram),
    `the row's name: ${row}`);
  assert.ok(row.split('\n').includes(`${config.liveProgram} ${facts.get('args')}`), `the row's command line: ${row}`);
  await screenshot('process-picker-filtered');
  for (let i = 0; i < 20; i++) {
    const focused = page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused .label-description');
    if (new RegExp(`^pid ${config.livePid} `).test((await focused.first().textContent()) ?? '')) break;
    await page.keyboard.press('ArrowDown');
  }
  await page.keyboard.press('Enter');

  // stopped after attaching (stopOnEntry's default), and still stopped a while later
  await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Attached' }).first().waitFor({ timeout: 120_000 });
  try {
    await page.waitForTimeout(4000);
    await screenshot('attached');
    assert.equal(await toolbarButton('Continue').count(), 1, 'the toolbar offers Continue: the program is stopped');
    assert.equal(await toolbarButton('Pause').count(), 0, 'no Pause: the program does not run');
    // the call stack given the side bar's room (the OpenMP view opened itself below it at the stop)
    for (const title of ['OpenMP', 'Variables', 'Watch', 'Breakpoints']) {
      const header = pane(title).locator('.pane-header').first();
      if ((await header.getAttribute('aria-expanded')) === 'true') await header.click();
    }
    await page.waitForTimeout(1500);
    await assertThreadRows(facts, 'attached');
  } finally {
    await endSession(); // detaches: the held fixture goes on
  }
});

test('a core file stays post-mortem: opened on the user\'s frame, Continue and steps change nothing', async () => {
  const facts = readFactsFile(config.coreFacts);
  await clearNotifications();
  await startConfiguration('core of barrier_straggler');
  await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Core file (post-mortem)' }).first()
    .waitFor({ timeout: 120_000 });
  // VS Code focuses the innermost frame of the user's code once it has the stack (libomp's frames deemphasized)
  const barrierLine = `Ln ${facts.get('hang.barrier.line')}, Col 1`;
  await page.locator('.statusbar [id="status.editor.selection"]', { hasText: barrierLine }).waitFor({ timeout: 30_000 })
    .catch(() => {});
  await page.waitForTimeout(1000);
  await screenshot('core-opened');
  const editor = (await page.locator('.tabs-container .tab.active .label-name').first().textContent())?.trim();
  const cursor = (await page.locator('.statusbar [id="status.editor.selection"]').first().innerText()).trim();
  assert.deepEqual({ editor, cursor }, { editor: 'barrier_straggler.c', cursor: barrierLine },
    'the editor opens the user\'s source at the barrier the fixture recorded');
  assert.ok(await page.locator('.monaco-editor .debug-top-stack-frame-line, .monaco-editor .debug-focused-stack-frame-line').count() > 0,
    'the frame\'s line marked');

  const before = await openMpRows();
  fs.writeFileSync(path.join(artifacts, 'core-openmp-before.txt'), before.join('\n'));
  // the core's team: one row per recorded thread, no other, each with its OpenMP name, its state by its role (the
  // straggler works, the others wait at the explicit barrier: libomp 19's state), its LWP, and "stopped here" on the
  // thread the core stopped (the main thread, whose LWP is the process id)
  const expected = [];
  for (let k = 0; k < Number(facts.get('threads')); k++) {
    const lwp = facts.get(`thread.${k}.lwp`);
    const state = facts.get(`thread.${k}.role`) === 'straggler' ? 'work_parallel' : 'wait_barrier_explicit';
    expected.push(`${factsName(facts, k)} · ${state} | ${lwp === facts.get('pid') ? 'stopped here · ' : ''}LWP ${lwp}`);
  }
  assert.deepEqual(before.map((row) => row.trim()).filter((row) => row.startsWith('omp ')).sort(), expected.sort(),
    `the OpenMP view shows the core's team:\n${before.join('\n')}`);
  assert.deepEqual(before.map((row) => row.trim()).filter((row) => / · team of /.test(row)),
    ['level 0 · team of 1 | 0 threads innermost here', `level 1 · team of ${facts.get('threads')} | ${facts.get('threads')} threads innermost here`],
    `the OpenMP view's regions:\n${before.join('\n')}`);
  const stacksBefore = await parallelStacksBoxes();
  assert.equal(stacksBefore.filter((box) => box.top === Math.min(...stacksBefore.map((b) => b.top)))
    .reduce((n, box) => n + box.gtids.length, 0), Number(facts.get('threads')), 'Parallel Stacks: every thread in the root boxes');
  const pressed = [];
  for (const button of ['Continue', 'Step Over', 'Step Into', 'Step Out']) {
    await toolbarButton(button).click();
    pressed.push(button);
    await page.waitForTimeout(1500);
  }
  await screenshot('core-after-run-buttons');
  const messages = [...new Set(await notifications())];
  assert.deepEqual(messages, ['A core file cannot run or step: this post-mortem session shows the program as the core '
    + 'recorded it, and its threads, stacks and OpenMP picture stay as they are'], `the notifications after ${pressed.join(', ')}`);
  assert.equal(await page.locator('.exception-widget').count(), 0, 'no exception widget');
  const after = await openMpRows();
  fs.writeFileSync(path.join(artifacts, 'core-openmp-after.txt'), after.join('\n'));
  assert.deepEqual(after, before, 'the OpenMP view is the same after the presses');
  assert.deepEqual(await parallelStacksBoxes(), stacksBefore, 'Parallel Stacks the same after the presses');
  await page.locator('.debug-call-stack .monaco-list-row', { hasText: 'Core file (post-mortem)' }).first().waitFor();
  await endSession();
});

test('a core with another program is refused with the command line\'s words', async () => {
  await clearNotifications();
  await startConfiguration('core with another program');
  // VS Code shows a launch's refusal in a dialog (with "Open 'launch.json'")
  const dialog = page.locator('.monaco-dialog-box');
  await dialog.first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  await screenshot('core-with-another-program');
  const lines = (await dialog.first().innerText()).split('\n').map((line) => line.trim()).filter((line) => line !== '');
  assert.deepEqual(lines.sort(), [config.mismatch, 'Cancel', 'Open \'launch.json\''].sort(), 'the dialog: the message and its buttons');
  assert.equal(await page.locator('.debug-toolbar:visible').count(), 0, 'no session');
  await page.keyboard.press('Escape');
});
