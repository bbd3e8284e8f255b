import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jobBoxes, JobBox, JobBoxData, JobDocument, JobError, jobArguments, JobNode, jobSelection, locateCli, parseJob, renderJobHtml } from '../src/jobPicture';

const who = (ranks: string, rankCount: number): string => (rankCount === 1 ? `rank ${ranks}` : `ranks ${ranks}`);

const node = (step: string, ranks: string, rankCount: number, threads: number, children: JobNode[] = []): JobNode =>
  ({ step, runtime: step.startsWith('[libomp: '), ranks, rankCount, who: who(ranks, rankCount), threads, children,
    stopped: threads - children.reduce((sum, child) => sum + child.threads, 0) });

/** A box as jompd writes it (these tests' boxes are written out: the box rule is jompd's, tested there). */
const box = (steps: string[], ranks: string, rankCount: number, threads: number, outlier: boolean,
  children: JobBoxData[] = [], stoppedHere = 0): JobBoxData =>
  ({ steps: steps.map((step) => ({ step, runtime: step.startsWith('[libomp: ') })), ranks, rankCount, who: who(ranks, rankCount),
    threads, stoppedHere, outlier, runtime: steps.every((step) => step.startsWith('[libomp: ')), children });

/**
 * A job of 32 ranks x 2 threads as jompd job prints it: ranks 0-2,4-31 wait in MPI_Allreduce on their initial
 * thread and idle in the pool on the other; rank 3's two threads deadlock on two locks; rank 32 is missing.
 */
function job(): JobDocument {
  const mpiStack = ['main (solver.c:30)', 'MPI_Allreduce (solver.c:120)'];
  const lockStack = (line: number) => ['main (solver.c:30)', '[libomp: runs the OpenMP code below (4 frames)]',
    `main.omp_outlined_debug__ (solver.c:${line})`, '[libomp: waiting for a lock (6 frames)]'];
  return {
    schema: 'jompd-job/1',
    ranks: { total: 33, seen: 32, missing: 1, duplicates: '' },
    diagnosis: ['ranks 0-2,4-31 wait in MPI_Allreduce (from solver.c:120); rank 3 never arrives: omp 0/2 waits for lock `guard` held by omp 1/2'],
    classes: [
      { ranks: '3', count: 1, who: 'rank 3', unnumbered: [], representative: { rank: 3, host: 'n1', pid: 40, source: 'pid' },
        hang: 'omp 0/2 waits for lock `guard` held by omp 1/2',
        threads: [
          { thread: 'omp 0/2 · level 1', state: 'wait_lock', tasks: [], stack: lockStack(88), roles: ['waits for lock `guard` at solver.c:88'] },
          { thread: 'omp 1/2 · level 1', state: 'wait_lock', tasks: [], stack: lockStack(90), roles: ['holds lock `guard`'] }],
        findings: ['deadlock: omp 0/2 waits for lock `guard` held by omp 1/2'], notices: [] },
      { ranks: '0-2,4-31', count: 31, who: 'ranks 0-2,4-31', unnumbered: [], representative: { rank: 0, host: 'n1', pid: 37, source: 'pid' },
        hang: 'no thread waits', mpi: { call: 'MPI_Allreduce', from: 'solver.c:120', thread: 'omp 0/1 · level 0' },
        threads: [
          { thread: 'omp 0/1 · level 0', state: 'work_serial', tasks: [], stack: mpiStack, roles: [] },
          { thread: 'omp gtid 1 · no team', state: 'idle', tasks: [], stack: ['[libomp: idle in the thread pool, waiting for work (5 frames)]'], roles: [] }],
        findings: ['none: no thread waits'], notices: [] },
    ],
    stacks: [
      node('main (solver.c:30)', '0-31', 32, 33, [
        node('MPI_Allreduce (solver.c:120)', '0-2,4-31', 31, 31),
        node('[libomp: runs the OpenMP code below (4 frames)]', '3', 1, 2, [
          node('main.omp_outlined_debug__ (solver.c:88)', '3', 1, 1, [node('[libomp: waiting for a lock (6 frames)]', '3', 1, 1)]),
          node('main.omp_outlined_debug__ (solver.c:90)', '3', 1, 1, [node('[libomp: waiting for a lock (6 frames)]', '3', 1, 1)]),
        ]),
      ]),
      node('[libomp: idle in the thread pool, waiting for work (5 frames)]', '0-2,4-31', 31, 31),
    ],
    boxes: [
      box(['main (solver.c:30)'], '0-31', 32, 33, false, [
        box(['MPI_Allreduce (solver.c:120)'], '0-2,4-31', 31, 31, false),
        box(['[libomp: runs the OpenMP code below (4 frames)]'], '3', 1, 2, true, [
          box(['main.omp_outlined_debug__ (solver.c:88)', '[libomp: waiting for a lock (6 frames)]'], '3', 1, 1, true),
          box(['main.omp_outlined_debug__ (solver.c:90)', '[libomp: waiting for a lock (6 frames)]'], '3', 1, 1, true),
        ]),
      ]),
      box(['[libomp: idle in the thread pool, waiting for work (5 frames)]'], '0-2,4-31', 31, 31, false),
    ],
    missing: [{ reason: 'exited', words: 'exited', detail: 'the process exited while it was read', ranks: '32', count: 1, unnumbered: [] }],
  };
}

test('the command line names the job as jompd job takes it', () => {
  assert.deepEqual(jobArguments({ kind: 'slurm', job: '1234.0' }), ['job', '--slurm', '1234.0', '--json']);
  assert.deepEqual(jobArguments({ kind: 'mpirun', pid: 4711 }), ['job', '--mpirun', '4711', '--json']);
  assert.deepEqual(jobArguments({ kind: 'cores', directory: '/tmp/cores' }), ['job', '--cores', '/tmp/cores', '--json']);
  assert.throws(() => jobArguments({ kind: 'slurm', job: 'abc' }), JobError);
  assert.throws(() => jobArguments({ kind: 'mpirun', pid: -1 }), JobError);
});

test('anything but a jompd-job/1 document is a clear error', () => {
  assert.throws(() => parseJob('not json'), /no JSON/);
  assert.throws(() => parseJob('{"schema":"jompd-inspect/1"}'), /a jompd-inspect\/1 document/);
  assert.throws(() => parseJob('{"schema":"jompd-job/1"}'), /without classes/);
  assert.equal(parseJob(JSON.stringify(job())).classes.length, 2);
});

test('jompd\'s boxes are drawn as they come, each step at its depth from the root, each box with its path', () => {
  const boxes = jobBoxes(job());
  assert.equal(boxes.length, 2);
  assert.deepEqual(boxes[0].steps.map((s) => s.text), ['main (solver.c:30)']);
  assert.deepEqual(boxes[0].children.map((b) => b.steps[0].text),
    ['MPI_Allreduce (solver.c:120)', '[libomp: runs the OpenMP code below (4 frames)]']);
  const lockBox = boxes[0].children[1].children[0] as JobBox;
  assert.deepEqual(lockBox.steps.map((s) => [s.text, s.depth, s.runtime]), [['main.omp_outlined_debug__ (solver.c:88)', 2, false],
    ['[libomp: waiting for a lock (6 frames)]', 3, true]]);
  assert.deepEqual(lockBox.path, ['main (solver.c:30)', '[libomp: runs the OpenMP code below (4 frames)]',
    'main.omp_outlined_debug__ (solver.c:88)', '[libomp: waiting for a lock (6 frames)]']);
});

test('threads stopped in a caller of another thread\'s frame are named on its box', () => {
  const doc = job();
  doc.stacks = [node('main (a.c:3)', '0-3', 4, 4, [node('[libomp: waiting at a barrier (4 frames)]', '0-2', 3, 3)])];
  doc.boxes = [box(['main (a.c:3)'], '0-3', 4, 4, false, [box(['[libomp: waiting at a barrier (4 frames)]'], '0-2', 3, 3, false)], 1)];
  const html = renderJobHtml(doc, 'job');
  assert.deepEqual([...html.matchAll(/<div class="omp">([^<]*)/g)].map((m) => m[1]),
    ['4 threads over 4 ranks (1 stopped here)', '3 threads over 3 ranks']);
});

test('a box leads to its ranks and threads', () => {
  const doc = job();
  const boxes = jobBoxes(doc);
  const root = jobSelection(doc, boxes[0].id, 0);
  assert.equal(root?.step, 'main (solver.c:30)');
  assert.deepEqual(root?.members.map((m) => `${m.ranks} · ${m.thread}`),
    ['rank 3 · omp 0/2 · level 1', 'rank 3 · omp 1/2 · level 1', 'ranks 0-2,4-31 · omp 0/1 · level 0']);
  const lock = jobSelection(doc, boxes[0].children[1].children[0].id, 3);
  assert.equal(lock?.step, '[libomp: waiting for a lock (6 frames)]');
  assert.deepEqual(lock?.members.map((m) => [m.ranks, m.thread, m.state, m.roles[0]]),
    [['rank 3', 'omp 0/2 · level 1', 'wait_lock', 'waits for lock `guard` at solver.c:88']]);
  assert.equal(jobSelection(doc, 'nope', 0), undefined);
});

test('the page shows the diagnosis, the outliers, the missing ranks, and escapes what it prints', () => {
  const doc = job();
  doc.classes[0].threads[0].thread = '<b>';
  const html = renderJobHtml(doc, 'Job 1234');
  assert.match(html, /rank 3 never arrives: omp 0\/2 waits for lock <code>guard<\/code>/);
  assert.match(html, /33 ranks: 32 seen in 2 classes, 1 missing/);
  assert.match(html, /ranks 32: exited: the process exited while it was read/);
  // one row per class: its ranks as ranges, how many, the rank shown and its hang
  assert.deepEqual([...html.matchAll(/<li data-ranks="([^"]*)">([^<]*)/g)].map((m) => [m[1], m[2]]),
    [['3', 'rank 3 (1 rank, shown: rank 3 on n1 (pid 40)): 2 threads: 2 wait_lock'],
      ['0-2,4-31', 'ranks 0-2,4-31 (31 ranks, shown: rank 0 on n1 (pid 37)): 2 threads: 1 idle, 1 work_serial']]);
  // the outlier boxes (rank 3 only) are marked, the common ones not
  const marked = [...html.matchAll(/<div class="box stopped" id="(j\d+)"/g)].map((m) => m[1]);
  assert.deepEqual(marked, ['j2', 'j3', 'j4']);
  assert.doesNotMatch(html, /<b>/);
  assert.match(html, /data-box="j0" data-depth="0"/);
});

test('the command line comes from the setting, then $JOMPD_CLI, then PATH', () => {
  assert.equal(locateCli({ setting: ' /opt/jompd/bin/jompd ', env: { JOMPD_CLI: '/x/jompd' } }), '/opt/jompd/bin/jompd');
  assert.equal(locateCli({ setting: '', env: { JOMPD_CLI: '~/jompd/bin/jompd', HOME: '/home/u' } }), '/home/u/jompd/bin/jompd');
  assert.equal(locateCli({ setting: '', env: {} }), 'jompd');
});
