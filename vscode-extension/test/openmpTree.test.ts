import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { buildTree, ICONS, icvTooltip, InspectTask, lwpOfName, noStopMessage, parseReport, SchemaError, shortState, taskKinds, TreeNode }
  from '../src/openmpTree';

const toolData = { value: '0', ptr: '0x0' };

function task(address: string, explicit: boolean, fn?: { address: string; symbol?: string }): InspectTask {
  return { address, flags: { explicit, final: false, tied: true, started: true, executing: false, complete: false,
    taskSerial: false, teamSerial: false }, function: fn, icvs: { 'run-sched-var': 'static,0' } };
}

/** A 2 x 2 nested program: one outer region (r1), two inner ones (r0, r2), four threads, one idle. */
function report(): unknown {
  const thread = (gtid: number, threadNum: number, region: string | null) => ({
    gtid, lwp: 100 + gtid, pthread: `0x${gtid}000`, threadNum, state: 'ompt_state_wait_barrier_explicit', waitId: '0x0',
    region, toolData, icvs: { 'thread-num-var': String(threadNum) },
    tasks: [task(`0x${gtid}a0`, false, { address: '0x1', symbol: 'main.omp_outlined' }),
      task(`0x${gtid}b0`, false, { address: '0x2', symbol: 'main.omp_outlined.1' }),
      task('0x5000', false, { address: '0x0' })],
  });
  return {
    schema: 'jompd-inspect/1',
    target: { kind: 'core', name: '/tmp/core', runtime: 'libomp.so', ompVersion: 201611 },
    icvs: { 'stacksize-var': '8388608' }, displayControlVariables: ['OMP_NUM_THREADS=2'],
    regions: [
      { id: 'r0', level: 2, activeLevel: 2, teamSize: 2, serialized: false, enclosing: 'r1', toolData, icvs: { 'levels-var': '2' } },
      { id: 'r1', level: 1, activeLevel: 1, teamSize: 2, serialized: false, enclosing: null, toolData, icvs: { 'levels-var': '1' } },
      { id: 'r2', level: 2, activeLevel: 2, teamSize: 2, serialized: false, enclosing: 'r1', toolData, icvs: { 'levels-var': '2' } },
    ],
    threads: [thread(0, 0, 'r0'), thread(1, 1, 'r0'), thread(2, 0, 'r2'), thread(3, 1, 'r2'), thread(4, 0, null)],
    problems: [],
  };
}

function find(nodes: TreeNode[], predicate: (n: TreeNode) => boolean): TreeNode[] {
  return nodes.flatMap((n) => [...(predicate(n) ? [n] : []), ...find(n.children, predicate)]);
}

test('teams nest under their enclosing region and threads sit in their innermost region', () => {
  const roots = buildTree(parseReport(report()));
  assert.deepEqual(roots.map((n) => n.kind), ['process', 'region', 'idle']);
  const outer = roots[1];
  assert.equal(outer.label, 'level 1 · team of 2');
  const inner = outer.children.filter((n) => n.kind === 'region');
  assert.equal(inner.length, 2);
  assert.deepEqual(inner[0].children.filter((n) => n.kind === 'thread').map((n) => n.label),
    ['omp 0/2 · LWP 100', 'omp 1/2 · LWP 101']);
  assert.equal(find(roots, (n) => n.kind === 'thread').length, 5, 'no thread marked stopped without a stop');
});

test('threads show their state, tasks and ICVs (on expansion and on hover)', () => {
  const roots = buildTree(parseReport(report()));
  const thread = find(roots, (n) => n.kind === 'thread')[0];
  assert.equal(thread.description, 'wait_barrier_explicit');
  assert.match(thread.tooltip ?? '', /thread-num-var = 0/);
  const icvs = thread.children.find((n) => n.kind === 'icvs');
  assert.deepEqual(icvs?.children.map((n) => [n.label, n.description]), [['thread-num-var', '0']]);
  const tasks = thread.children.filter((n) => n.kind === 'task');
  assert.deepEqual(tasks.map((t) => [t.label, t.description]), [['level 2 implicit task', 'main.omp_outlined'],
    ['level 1 implicit task', 'main.omp_outlined.1'], ['level 0 initial task', 'main program']]);
  assert.match(tasks[0].tooltip ?? '', /run-sched-var = static,0/);
  assert.doesNotMatch(tasks[2].tooltip ?? '', /0x0\b(?!0)/, 'the initial task is not shown as function 0x0');
});

test('explicit tasks take the level of the implicit task below them; unreadable tasks have none', () => {
  const kinds = taskKinds([task('0x1', true), task('0x2', false), task('0x3', true), task('0x4', false)]);
  assert.deepEqual(kinds, [{ kind: 'explicit', level: 1 }, { kind: 'implicit', level: 1 }, { kind: 'explicit', level: 0 },
    { kind: 'initial', level: 0 }]);
  const unreadable = { ...task('0x9', false), flags: undefined };
  assert.deepEqual(taskKinds([task('0x1', false), unreadable]), [{ kind: 'implicit', level: undefined }, { kind: 'task' }]);
});

test('the stopped thread is marked and expanded; the others are not', () => {
  const roots = buildTree(parseReport(report()), 102);
  const threads = find(roots, (n) => n.kind === 'thread' || n.kind === 'stoppedThread');
  assert.deepEqual(threads.filter((n) => n.kind === 'stoppedThread').map((n) => n.label), ['omp 0/2 · LWP 102']);
  assert.match(threads.find((n) => n.kind === 'stoppedThread')?.description ?? '', /^stopped here/);
  assert.equal(lwpOfName('omp 0/2 · level 2 · work_parallel (LWP 4711)'), 4711);
  assert.equal(lwpOfName('Thread 0x7f (LWP 12) main'), undefined);
});

test('empty strings are shown as ""', () => {
  const empty = report() as { icvs: Record<string, string> };
  empty.icvs['tool-libraries-var'] = '';
  const process = buildTree(parseReport(empty))[0];
  const icv = find([process], (n) => n.label === 'tool-libraries-var')[0];
  assert.equal(icv.description, '""');
  assert.match(process.tooltip ?? '', /tool-libraries-var = ""/);
});

test('every row icon is a codicon VS Code 1.96 has (an unknown name draws a blank)', () => {
  const known = new Set(fs.readFileSync(path.join(__dirname, '..', '..', 'test', 'codicons-1.96.txt'), 'utf8')
    .split('\n').filter((line) => line !== '' && !line.startsWith('#')));
  assert.ok(known.size > 500, `codicon list read (${known.size})`);
  assert.ok(!known.has('debug-thread'));
  for (const [kind, icon] of Object.entries(ICONS)) {
    assert.ok(known.has(icon), `${kind}: ${icon} is no codicon in VS Code 1.96`);
  }
});

test('ids are unique so VS Code can keep the expansion state across refreshes', () => {
  const ids = find(buildTree(parseReport(report())), () => true).map((n) => n.id);
  assert.equal(new Set(ids).size, ids.length);
});

test('a region whose enclosing region is missing is shown at the top, and problems are listed', () => {
  const broken = report() as { regions: { enclosing: string | null }[]; problems: string[] };
  broken.regions[0].enclosing = 'r99';
  broken.problems = ['thread gtid 3: cannot read th_team'];
  const roots = buildTree(parseReport(broken));
  assert.deepEqual(roots.map((n) => n.kind), ['process', 'region', 'region', 'idle', 'problems']);
  assert.equal(roots[4].children[0].label, 'thread gtid 3: cannot read th_team');
});

test('answers of another schema or shape are refused with a message', () => {
  assert.throws(() => parseReport(null), SchemaError);
  assert.throws(() => parseReport({ schema: 'jompd-inspect/2', threads: [], regions: [] }), /unsupported/);
  assert.throws(() => parseReport({ schema: 'jompd-inspect/1' }), /threads or regions/);
});

test('helpers', () => {
  assert.equal(shortState('ompt_state_work_parallel'), 'work_parallel');
  assert.equal(shortState('unknown state 0x7'), 'unknown state 0x7');
  assert.equal(icvTooltip('T', { a: '1' }, ['x']), 'T\nx\na = 1');
});

test('the server\'s no-stop answer is a message, a picture is not', () => {
  assert.equal(noStopMessage({ stop: null, state: 'running', reason: 'the program is running' }),
    'The program is running: the OpenMP picture comes at the next stop');
  assert.equal(noStopMessage({ stop: null, state: 'something-new', reason: 'why' }), 'why');
  assert.equal(noStopMessage(report()), undefined);
  assert.equal(noStopMessage(null), undefined);
});

test('the report module\'s fields are used when the server sends them', () => {
  const newer = report() as { target: Record<string, unknown>; threads: Record<string, unknown>[] };
  newer.target.openmp = 'OpenMP 5.0 preview (TR4), 201611';
  newer.threads[0].name = 'omp 0.0 · 0/2 · level 2 · wait_barrier_explicit';
  const tasks = newer.threads[0].tasks as InspectTask[];
  tasks[0].kind = 'explicit';
  tasks[0].status = 'suspended';
  tasks[0].function = { address: '0x1', symbol: '.omp_task_entry..3', displayName: 'fib' };
  const roots = buildTree(parseReport(newer));
  assert.match(roots[0].description ?? '', /OpenMP 5\.0 preview \(TR4\), 201611/);
  const thread = find(roots, (n) => n.label.startsWith('omp 0.0'))[0];
  assert.equal(thread.label, 'omp 0.0 · 0/2 · level 2 · wait_barrier_explicit');
  assert.equal(thread.description, 'LWP 100');
  const first = thread.children.find((n) => n.kind === 'task');
  assert.deepEqual([first?.label, first?.description], ['level 1 explicit task (suspended)', 'fib']);
});
