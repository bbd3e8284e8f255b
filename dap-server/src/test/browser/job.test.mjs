// `jompd: Inspect an MPI Job` in a real VS Code: code-server 4.96.4 (VS Code 1.96.4) in Debian's Chromium,
// driven by playwright-core as a user would (command palette, quick pick, input box, clicks in the webview).
// Run by VscodeJobIT, which starts a hung hybrid MPI job under mpirun (mpi_hybrid lock_barrier) and writes
// the configuration ($JOMPD_BROWSER_CONFIG): codeServer, vsix, workspace, artifacts, chromium, port, cli (the
// jompd command line the extension runs), mpirun (the launcher's pid) and facts (the directory where every
// rank recorded itself: rank-R.properties). Everything the view shows is checked against those facts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { artifacts, command, config, errorNotifications, page, screenshot, startVscode, stopVscode } from './vscode-harness.mjs';

const COMMAND = 'jompd: Inspect an MPI Job (Slurm job, mpirun pid or cores)';

/** The facts rank r recorded about itself (key=value lines). */
function rankFacts(r) {
  const facts = new Map();
  for (const line of fs.readFileSync(path.join(config.facts, `rank-${r}.properties`), 'utf8').split('\n')) {
    const at = line.indexOf('=');
    if (at > 0 && !line.startsWith('#')) facts.set(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return facts;
}

/** The OpenMP name of fixture thread k from its facts: "omp 0/3 · level 1" (team path, number/size, level). */
function factsName(facts, k) {
  const ancestors = (facts.get(`thread.${k}.ancestors`) ?? '').split(',').filter((a) => a !== '');
  const teamPath = ancestors.slice(0, -1).join('.');
  return `omp ${teamPath ? `${teamPath} · ` : ''}${facts.get(`thread.${k}.thread_num`)}/${facts.get(`thread.${k}.team_size`)}`
    + ` · level ${facts.get(`thread.${k}.level`)}`;
}

/** Ranks as the job picture writes them: sorted, runs of 2 or more as "a-b" ("0-1,3-4"). */
function ranges(ranks) {
  const sorted = [...ranks].sort((a, b) => a - b);
  const parts = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(j > i ? `${sorted[i]}-${sorted[j]}` : `${sorted[i]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** The rows of the open quick pick: each row's label, description and detail as VS Code shows them. */
async function quickPickRows() {
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').first().waitFor();
  await page.waitForTimeout(300);
  return page.locator('.quick-input-widget .quick-input-list .monaco-list-row').evaluateAll((rows) => rows.map((row) => ({
    label: row.querySelector('.label-name')?.textContent?.trim() ?? '',
    description: row.querySelector('.label-description')?.textContent?.trim() ?? '',
    detail: row.querySelector('.quick-input-list-label-meta')?.textContent?.trim() ?? '',
  })));
}

before(() => startVscode({ 'jompd.cliPath': config.cli }));

after(stopVscode);

test('jompd: Inspect an MPI Job on an mpirun pid shows the job as its ranks recorded themselves', async (t) => {
  const ranks = Number(config.ranks);
  const facts = Array.from({ length: ranks }, (_, r) => rankFacts(r));
  const culprit = facts.findIndex((f) => f.get('mpi.role') === 'culprit');
  assert.ok(culprit >= 0, 'one rank recorded itself as the culprit');
  const waiting = facts.map((f, r) => (f.get('mpi.role') === 'waiting' ? r : -1)).filter((r) => r >= 0);
  assert.equal(waiting.length, ranks - 1, 'every other rank recorded itself as waiting');
  const guilty = facts[culprit];
  // the culprit's thread that asks for the lock (role lock_wait), and the lock's name and line from its facts
  const lockThread = [...Array(Number(guilty.get('threads'))).keys()].find((k) => guilty.get(`thread.${k}.role`) === 'lock_wait');
  assert.ok(lockThread !== undefined, 'the culprit recorded its lock-waiting thread');
  const lock = guilty.get(`thread.${lockThread}.waits_for`);
  const lockLine = guilty.get(`thread.${lockThread}.wait_line`);

  await command(COMMAND);
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'mpirun / mpiexec process' }).first().waitFor();
  await screenshot('which-job');
  await page.locator('.quick-input-widget .quick-input-list .monaco-list-row', { hasText: 'mpirun / mpiexec process' }).first().click();
  // the input box for the launcher's pid
  await page.locator('.quick-input-widget .quick-input-box input').first().waitFor({ state: 'visible' });
  await page.waitForTimeout(300);
  await page.keyboard.type(String(config.mpirun));
  await page.keyboard.press('Enter');

  const webview = page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
  await webview.locator('.box').first().waitFor({ timeout: 90_000 });
  await page.waitForTimeout(500);
  await screenshot('job-picture');
  const view = {
    title: await webview.locator('.diagnosis h2').first().textContent(),
    summary: await webview.locator('.summary').first().textContent(),
    diagnosis: await webview.locator('.diagnosis li').allTextContents(),
    classes: await webview.locator('.classes li').evaluateAll((items) => items.map((item) => ({
      ranks: item.dataset.ranks, text: item.textContent }))),
    boxes: await webview.locator('.box').evaluateAll((elements) => elements.map((box) => ({
      id: box.id,
      who: box.querySelector('.threads').getAttribute('title'),
      counts: box.querySelector('.omp').textContent,
      steps: [...box.querySelectorAll('button.step')].map((step) => step.textContent),
      outlier: box.classList.contains('stopped'),
      top: Number(box.dataset.top),
    }))),
  };
  fs.writeFileSync(path.join(artifacts, 'job-picture.json'), JSON.stringify(view, null, 2));

  await t.test('the picture is the job the launcher started: every rank, as one range', () => {
    assert.equal(view.title, `mpirun ${config.mpirun}`);
    assert.match(view.summary, new RegExp(`^${ranks} ranks: ${ranks} seen in \\d+ class`), view.summary);
    // the root of the main threads (the other roots are the threads' own starts, clone3)
    const top = Math.min(...view.boxes.map((b) => b.top));
    const main = view.boxes.filter((b) => b.top === top && b.steps[0] === '_start');
    assert.equal(main.length, 1, 'one root box of main threads, from _start');
    assert.equal(main[0].who, `ranks ${ranges(facts.map((_, r) => r))}`, 'it holds every rank, as a range');
    assert.equal(main[0].counts, `${ranks} threads over ${ranks} ranks`, 'one main thread per rank');
  });

  await t.test('the classes of ranks: the culprit alone, the others only waiting ranks', () => {
    assert.equal(view.classes.length, Number(view.summary.match(/seen in (\d+) class/)[1]), 'one row per class');
    const covered = [];
    for (const row of view.classes) {
      const members = row.ranks.split(',').flatMap((part) => {
        const [first, last] = part.split('-').map(Number);
        return Array.from({ length: (last ?? first) - first + 1 }, (_, i) => first + i);
      });
      covered.push(...members);
      if (members.includes(culprit)) {
        assert.deepEqual(members, [culprit], `the culprit's class: ${row.text}`);
        assert.ok(row.text.startsWith(`rank ${culprit} (1 rank, shown: rank ${culprit} on ${guilty.get('mpi.host')} `
          + `(pid ${guilty.get('pid')})): `), row.text);
        // its OpenMP team's threads in the states their roles imply (JobIT maps them the same way)
        const roles = [...Array(Number(guilty.get('threads'))).keys()].map((k) => guilty.get(`thread.${k}.role`));
        const atBarrier = roles.filter((role) => role === 'barrier').length;
        assert.ok(row.text.includes(`${atBarrier} wait_barrier_explicit`), `${row.text}: ${atBarrier} threads at the barrier`);
        assert.ok(row.text.includes(`${roles.filter((role) => role === 'lock_wait').length} wait_lock`), row.text);
      } else {
        for (const r of members) assert.equal(facts[r].get('mpi.role'), 'waiting', `rank ${r} in ${row.text}`);
      }
    }
    assert.deepEqual(covered.sort((a, b) => a - b), facts.map((_, r) => r), 'the classes cover every rank once');
  });

  await t.test('the culprit is named with its lock wait, the waiters as ranges', () => {
    const named = view.diagnosis.filter((d) => d.startsWith(`rank ${culprit}:`));
    assert.equal(named.length, 1, `one diagnosis for rank ${culprit}:\n${view.diagnosis.join('\n')}`);
    assert.ok(named[0].includes(`waits for lock ${lock}`), `${named[0]} names lock ${lock}`);
    assert.ok(named[0].includes(`mpi_hybrid.c:${lockLine}`), `${named[0]} names the line it waits at, mpi_hybrid.c:${lockLine}`);
    const lockBoxes = view.boxes.filter((b) => b.steps.some((s) => s.includes('waiting for a lock')));
    assert.equal(lockBoxes.length, 1, 'one box waits for a lock');
    assert.equal(lockBoxes[0].who, `rank ${culprit}`, 'the lock wait is the culprit\'s');
    assert.ok(lockBoxes[0].outlier, 'the culprit\'s box is marked as an outlier');
    // the waiters' stacks pass through the function their facts name; together those boxes hold exactly them
    const waitFunction = facts[waiting[0]].get('mpi.wait_function');
    const waitBoxes = view.boxes.filter((b) => b.steps.some((s) => s.startsWith(`${waitFunction} `)));
    assert.ok(waitBoxes.length >= 1, `a box passes through ${waitFunction}`);
    assert.equal(ranges(waitBoxes.flatMap((b) => b.who.replace(/^ranks? /, '').split(',').flatMap((part) => {
      const [first, last] = part.split('-').map(Number);
      return Array.from({ length: (last ?? first) - first + 1 }, (_, i) => first + i);
    }))), ranges(waiting), `the boxes through ${waitFunction} hold the waiting ranks`);
    assert.ok(waitBoxes.some((b) => b.who === `ranks ${ranges(waiting)}`), `one box names the waiters as ranges: ranks ${ranges(waiting)}`);
    assert.ok(waitBoxes.every((b) => !b.outlier), 'the waiters are the bulk of the job, not outliers');
  });

  await t.test('a click on the culprit\'s lock wait leads to its rank and thread', async () => {
    const lockBox = view.boxes.find((b) => b.steps.some((s) => s.includes('waiting for a lock')));
    await webview.locator(`#${lockBox.id} button.step`, { hasText: 'waiting for a lock' }).first().click();
    const rows = await quickPickRows();
    await screenshot('the-lock-waits-ranks-and-threads');
    fs.writeFileSync(path.join(artifacts, 'lock-wait-members.json'), JSON.stringify(rows, null, 2));
    assert.equal(rows.length, 1, `one thread waits for the lock: ${JSON.stringify(rows)}`);
    assert.equal(rows[0].label, `rank ${culprit} · ${factsName(guilty, lockThread)}`);
    assert.equal(rows[0].description, 'wait_lock');
    assert.ok(rows[0].detail.includes(`waits for lock \`${lock}\` at mpi_hybrid.c:${lockLine}`), rows[0].detail);
    assert.ok(rows[0].detail.includes(`shown: rank ${culprit} on ${guilty.get('mpi.host')} (pid ${guilty.get('pid')})`), rows[0].detail);
    await page.keyboard.press('Escape');
  });

  await t.test('a click on the waiters\' MPI wait leads to their ranks, as ranges, and thread', async () => {
    const waitFunction = facts[waiting[0]].get('mpi.wait_function');
    const waitBox = view.boxes.find((b) => b.who === `ranks ${ranges(waiting)}` && b.steps.some((s) => s.startsWith(`${waitFunction} `)));
    await webview.locator(`#${waitBox.id} button.step`, { hasText: new RegExp(`^${waitFunction} `) }).first().click();
    const rows = await quickPickRows();
    await screenshot('the-mpi-waits-ranks-and-threads');
    fs.writeFileSync(path.join(artifacts, 'mpi-wait-members.json'), JSON.stringify(rows, null, 2));
    const first = facts[waiting[0]];
    const mainThread = [...Array(Number(first.get('threads'))).keys()].find((k) => first.get(`thread.${k}.role`) === 'mpi_wait');
    assert.deepEqual(rows.map((r) => r.label), [`ranks ${ranges(waiting)} · ${factsName(first, mainThread)}`],
      'the waiting ranks\' main thread, all in one row');
    assert.ok(rows[0].detail.includes(`shown: rank ${waiting[0]} on ${first.get('mpi.host')} (pid ${first.get('pid')})`), rows[0].detail);
    await page.keyboard.press('Escape');
  });

  await t.test('no error notification', async () => {
    await page.waitForTimeout(1000);
    assert.deepEqual(await errorNotifications(), []);
  });
});
