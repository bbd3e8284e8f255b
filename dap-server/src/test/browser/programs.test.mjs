// Programs a user debugs besides a well-formed OpenMP one, in a real VS Code (code-server 4.96.4 in Chromium),
// each started from the workspace's launch.json as a user starts it. Run by
// VscodeBrowserIT#programsWithoutOmpDebugWithoutOpenMpWithTasksAndStepIntoInVscode,
// which writes the configuration ($JOMPD_BROWSER_CONFIG): besides the harness's, untrackedFacts and tasksFacts
// (where the fixtures record their facts), untrackedHint and notTracked (report's OpenMpPicture.UNTRACKED_HINT and
// NOT_TRACKED), noOpenMp (the sentence every door says of the sleep core), and the Step Into case (StepIntoCase.PARALLEL:
// stepSource, stepBreakLine, stepNexts, stepPragmaLine, stepFirstLine, stepNextLine).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifacts, collectRows, command, config, consoleEvaluate, endSession, errorNotifications, factsName, page, pane,
  readFactsFile, screenshot, setPaneExpanded, startConfiguration, startVscode, stopVscode } from './vscode-harness.mjs';

/** The OpenMP view's rows once it shows a picture: side bar room given to it, every thread row opened. */
async function openMpRows(name) {
  for (const title of ['Variables', 'Watch', 'Call Stack', 'Breakpoints']) await setPaneExpanded(title, false);
  const view = pane('OpenMP');
  await view.locator('.monaco-list-row', { hasText: /^level 1/ }).first().waitFor({ timeout: 60_000 });
  await page.waitForTimeout(2500); // the extension has the open rows fetched again one by one (refetchOpenRows)
  for (let round = 0; round < 20; round++) { // open each closed thread row (its tasks), one at a time: rows move
    const closed = view.locator('.monaco-list-row[aria-expanded="false"]', { hasText: /^omp / });
    if (await closed.count() === 0) break;
    await closed.first().locator('.monaco-tl-twistie').click();
    await page.waitForTimeout(700);
  }
  await page.waitForTimeout(1000);
  await screenshot(`openmp-${name}`);
  const rows = await collectRows(view);
  fs.writeFileSync(path.join(artifacts, `openmp-${name}.txt`), rows.map((r) =>
    `${'  '.repeat(Math.max(0, r.level - 1))}${r.text}    [aria: ${r.aria}]`).join('\n'));
  return rows;
}

/** The rows of thread k (its facts' name) and the rows under it (its tasks). */
function threadAndTasks(rows, facts, k) {
  const name = factsName(facts, k);
  const at = rows.findIndex((r) => /^omp /.test(r.text) && r.text.startsWith(name) && !/^[\d.]/.test(r.text.slice(name.length)));
  assert.ok(at >= 0, `a row for fixture thread ${k} (${name})`);
  const under = [];
  for (let i = at + 1; i < rows.length && rows[i].level > rows[at].level; i++) if (rows[i].level === rows[at].level + 1) under.push(rows[i]);
  return { thread: rows[at], tasks: under.filter((r) => / task\b/.test(r.text.split(' | ')[0])) };
}

async function waitForStop() {
  await setPaneExpanded('Call Stack', true);
  try {
    // a thread row says it, or with one thread (its frames shown at once) the view's header does
    await pane('Call Stack').filter({ hasText: /Paused on|Core file \(post-mortem\)/ }).first().waitFor({ timeout: 120_000 });
  } catch (notStopped) {
    await screenshot('no-stop');
    throw notStopped;
  }
  await page.waitForTimeout(2000);
}

before(async () => {
  await startVscode({ 'debug.console.closeOnEnd': false });
  await page.locator('.activitybar .action-item a[aria-label^="Run and Debug"]').first().click();
  await page.waitForTimeout(1000);
  // the function breakpoint the fixtures stop at (the Breakpoints view's "Add Function Breakpoint")
  const breakpoints = pane('Breakpoints');
  await breakpoints.locator('.pane-header').hover();
  await breakpoints.locator('.pane-header a.action-label[aria-label="Add Function Breakpoint"]').first().click();
  await page.waitForFunction(() => ['INPUT', 'TEXTAREA'].includes(document.activeElement?.tagName ?? ''));
  await page.waitForTimeout(300);
  await page.keyboard.type('jompd_marker');
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
});

after(stopVscode);

test('without OMP_DEBUG the hint shows once and every thread is "not tracked", without an error', async () => {
  await startConfiguration('parallel 2 without OMP_DEBUG');
  try {
    await waitForStop();
    const facts = readFactsFile(config.untrackedFacts);
    const rows = await openMpRows('without-OMP_DEBUG');
    // the hint, as the view renders it: a row's label (cut when long: its start) or a tooltip (the row's aria-label)
    const hint = config.untrackedHint;
    const says = (text) => text.includes(hint) || (text.endsWith('…') && text.length > 40
      && `note: ${hint}`.startsWith(text.slice(0, -1).trimEnd()));
    const mentions = rows.filter((r) => says(r.text.split(' | ')[0]) || says(r.aria));
    assert.deepEqual(mentions.map((r) => r.aria), [`note: ${hint}`], `one row says it, its tooltip the whole hint:\n${rows.map((r) => r.text).join('\n')}`);
    assert.ok(says(mentions[0].text), `the row's label is the hint or its start: ${mentions[0].text}`);
    const everything = rows.map((r) => `${r.text}\n${r.aria}`).join('\n');
    assert.equal(everything.split(hint).length - 1, 1, 'the whole hint said once in the view');
    // every recorded thread's row: its OpenMP name, then (the marker's thread stopped there) its LWP and state
    // "not tracked" beside it; its tooltip's state "not tracked", and no wait id (none kept)
    const threads = Number(facts.get('threads'));
    const marker = Number(facts.get('marker_thread'));
    const seen = [];
    for (let k = 0; k < threads; k++) {
      const { thread } = threadAndTasks(rows, facts, k);
      seen.push(thread.text);
      assert.deepEqual(thread.aria.split('\n').filter((line) => /^state /.test(line) || line.includes('wait id')),
        [`state ${config.notTracked}`], `fixture thread ${k}'s tooltip:\n${thread.aria}`);
    }
    assert.deepEqual(seen, [...Array(threads).keys()].map((k) => `${factsName(facts, k)} | ${k === marker ? 'stopped here · ' : ''}`
      + `LWP ${facts.get(`thread.${k}.lwp`)} · ${config.notTracked}`), 'each thread row: its name, LWP and state');
    assert.equal(rows.filter((r) => /^omp /.test(r.text)).length, threads, 'no other thread rows');
    assert.deepEqual(await errorNotifications(), [], 'error notifications');
  } finally {
    await endSession();
  }
});

test('a program without OpenMP: the one sentence in the OpenMP view and the console, no ompd_rc', async () => {
  await startConfiguration('core of sleep');
  try {
    await waitForStop();
    for (const title of ['Variables', 'Watch', 'Call Stack', 'Breakpoints']) await setPaneExpanded(title, false);
    const view = pane('OpenMP');
    await view.locator('.monaco-list-row', { hasText: config.noOpenMp }).first().waitFor({ timeout: 60_000 }).catch(() => {});
    await page.waitForTimeout(2000);
    await screenshot('openmp-no-openmp');
    const rows = await collectRows(view);
    fs.writeFileSync(path.join(artifacts, 'openmp-no-openmp.txt'), rows.map((r) => `${r.text}    [aria: ${r.aria}]`).join('\n'));
    assert.deepEqual(rows.map((r) => r.text), [config.noOpenMp], 'the view: the one sentence');
    const answer = await consoleEvaluate('ompd threads');
    await screenshot('console-ompd-threads-no-openmp');
    fs.writeFileSync(path.join(artifacts, 'console-ompd-threads-no-openmp.txt'), answer.join('\n'));
    assert.deepEqual(answer.slice(-2), ['ompd threads', `ompd threads: ${config.noOpenMp}`], `the console's answer:\n${answer.join('\n')}`);
    assert.ok(![...rows.map((r) => `${r.text} ${r.aria}`), ...answer].some((text) => text.includes('ompd_rc')), 'no ompd_rc');
    assert.deepEqual(await errorNotifications(), [], 'error notifications');
  } finally {
    await endSession();
  }
});

test('a task program: each thread\'s tasks as the program recorded them, one executing', async () => {
  await startConfiguration('tasks 10 4');
  try {
    await waitForStop();
    const facts = readFactsFile(config.tasksFacts);
    const rows = await openMpRows('tasks');
    const threads = Number(facts.get('threads'));
    for (let k = 0; k < threads; k++) {
      const { tasks } = threadAndTasks(rows, facts, k);
      const labels = tasks.map((r) => r.text.split(' | ')[0]);
      // the explicit tasks the program recorded on thread k, innermost first (thread 0: its chain C, B, A)
      const names = k === 0 ? facts.get('task_chain').split(',').map((t) => t.split(':')[0])
        : facts.has(`thread.${k}.task`) ? [facts.get(`thread.${k}.task`)] : [];
      const flagsOf = (name) => (facts.get(`task.${name}.flags`) ?? facts.get(`thread.${k}.task_flags`)).split(',');
      const level = facts.get(`thread.${k}.level`);
      const explicit = names.map((name) => {
        const flags = flagsOf(name);
        return [`level ${level} explicit task`, ...(flags.includes('untied') ? ['untied'] : []),
          ...(flags.includes('final') ? ['final'] : []), ...(flags.includes('undeferred') ? ['undeferred'] : [])].join(' ');
      });
      const expected = [...explicit, `level ${level} implicit task`, 'level 0 initial task']
        .map((words, i) => `${words} (${i === 0 ? 'executing' : 'suspended'})`);
      assert.deepEqual(labels, expected, `fixture thread ${k}'s task rows`);
      assert.equal(labels.filter((l) => l.endsWith('(executing)')).length, 1, `one executing task on thread ${k}`);
    }
    assert.deepEqual(await errorNotifications(), [], 'error notifications');
  } finally {
    await endSession();
  }
});

/** The editor's file and cursor line as VS Code shows them (the active tab, the status bar's "Ln"). */
async function editorAt(line) {
  await page.locator('.statusbar [id="status.editor.selection"]', { hasText: `Ln ${line},` }).waitFor({ timeout: 60_000 }).catch(() => {});
  await page.waitForTimeout(500);
  const file = (await page.locator('.tabs-container .tab.active .label-name').first().textContent())?.trim();
  const cursor = (await page.locator('.statusbar [id="status.editor.selection"]').first().innerText()).trim();
  return { file, line: Number(/^Ln (\d+),/.exec(cursor)?.[1]) };
}

test('Step Into on a #pragma omp parallel line goes to the region\'s first statement, Step Over on from there', async () => {
  await command('Remove All Breakpoints');
  // the fixture's source opened by its path (Quick Open), the breakpoint set at its line (Go to Line, F9)
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget .quick-input-box input').first();
  await input.waitFor({ state: 'visible' });
  await input.fill(config.stepSource);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(config.stepSource) }).first().waitFor();
  await page.waitForTimeout(800);
  await page.keyboard.press('Enter');
  await page.locator('.tabs-container .tab.active', { hasText: path.basename(config.stepSource) }).waitFor();
  await page.locator('.monaco-editor textarea').first().focus();
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget .quick-input-box input').first().waitFor({ state: 'visible' });
  await page.keyboard.type(String(config.stepBreakLine));
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
  await page.keyboard.press('F9');
  await page.waitForTimeout(500);
  await screenshot('step-breakpoint-set');
  await startConfiguration('parallel 2 step into');
  try {
    await waitForStop();
    const file = path.basename(config.stepSource);
    assert.deepEqual(await editorAt(config.stepBreakLine), { file, line: config.stepBreakLine }, 'stopped at the breakpoint');
    for (let i = 0; i < config.stepNexts; i++) {
      await page.keyboard.press('F10');
      await page.waitForTimeout(1500);
    }
    assert.deepEqual(await editorAt(config.stepPragmaLine), { file, line: config.stepPragmaLine }, 'on the pragma line');
    await screenshot('step-on-the-pragma');
    await page.keyboard.press('F11');
    const into = await editorAt(config.stepFirstLine);
    await screenshot('step-into-the-region');
    assert.deepEqual(into, { file, line: config.stepFirstLine }, 'Step Into: the region\'s first statement');
    await page.keyboard.press('F10');
    const over = await editorAt(config.stepNextLine);
    await screenshot('step-over-in-the-region');
    assert.deepEqual(over, { file, line: config.stepNextLine }, 'Step Over: the next statement, not the pragma');
    assert.deepEqual(await errorNotifications(), [], 'error notifications');
  } finally {
    await endSession();
  }
});
