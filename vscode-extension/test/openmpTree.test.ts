import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as fs from 'fs';
import * as path from 'path';
import { buildTree, ICONS, icvTooltip, InspectRecorder, InspectReport, InspectTask, messageTree, noStopMessage, parseReport, SchemaError,
  SENTENCE_LABEL_LENGTH, shortState, startsExpanded, taskKinds, TreeNode, TreePictures, truncated } from '../src/openmpTree';

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

test('the picture\'s notices (no OMP_DEBUG: what to set) are rows of their own, once, under the process', () => {
  const thin = report() as { notices: string[] };
  const hint = 'thread states, wait ids, task frames and task functions are not tracked: start the program with '
    + 'OMP_DEBUG=enabled (exactly that value) in its environment to see them, as libomp (every version with OMPD, '
    + 'LLVM 14 on) tracks them only then; everything else is complete.';
  thin.notices = [hint];
  const roots = buildTree(parseReport(thin));
  assert.deepEqual(roots.map((n) => n.kind), ['process', 'message', 'region', 'idle']);
  assert.equal(roots[1].tooltip, `note: ${hint}`);
  assert.equal(roots[1].label, truncated(`note: ${hint}`));
  assert.equal(find(roots, (n) => (n.tooltip ?? n.label).includes('OMP_DEBUG')).length, 1);
});

test('a thread whose state is not tracked (no OMP_DEBUG) shows no wait id, which libomp did not keep either', () => {
  const thin = report() as { threads: { state: string }[] };
  thin.threads.forEach((thread) => { thread.state = 'not tracked'; });
  const threads = find(buildTree(parseReport(thin)), (n) => n.kind === 'thread' || n.kind === 'stoppedThread');
  assert.equal(threads.length, thin.threads.length);
  for (const thread of threads) {
    assert.deepEqual(thread.tooltip?.split('\n').filter((line) => /^(state|wait id)\b/.test(line) || line.includes('wait id')),
      ['state not tracked'], thread.tooltip);
  }
});

test('each thread row says its state once, in the server\'s words: in the name when known, else beside the LWP', () => {
  const named = report() as { threads: Record<string, unknown>[] };
  const [barrier, untracked, unknownCode, stopped, idle] = named.threads;
  barrier.name = 'omp 0 · 0/2 · level 2 · wait_barrier_explicit';
  untracked.name = 'omp 0 · 1/2 · level 2';
  untracked.state = 'not tracked';
  delete untracked.waitId; // the report module leaves it out where libomp keeps none
  unknownCode.name = 'omp 1 · 0/2 · level 2';
  unknownCode.state = 'unknown state 0x7';
  unknownCode.waitId = '0x42';
  stopped.name = 'omp 1 · 1/2 · level 2';
  stopped.state = 'not tracked';
  delete stopped.waitId;
  idle.name = 'omp gtid 4 · no team · work_parallel';
  idle.state = 'ompt_state_work_parallel';
  const rows = find(buildTree(parseReport(named), 103), (n) => n.kind === 'thread' || n.kind === 'stoppedThread');
  assert.deepEqual(rows.map((n) => [n.label, n.description, n.tooltip?.split('\n').find((line) => line.startsWith('state '))]), [
    ['omp 0 · 0/2 · level 2 · wait_barrier_explicit', 'LWP 100', 'state ompt_state_wait_barrier_explicit, wait id 0x0'],
    ['omp 0 · 1/2 · level 2', 'LWP 101 · not tracked', 'state not tracked'],
    ['omp 1 · 0/2 · level 2', 'LWP 102 · unknown state 0x7', 'state unknown state 0x7, wait id 0x42'],
    ['omp 1 · 1/2 · level 2', 'stopped here · LWP 103 · not tracked', 'state not tracked'],
    ['omp gtid 4 · no team · work_parallel', 'LWP 104', 'state ompt_state_work_parallel, wait id 0x0'],
  ]);
});

test('the process tooltip names its sections: the program\'s environment, then libomp\'s defaults', () => {
  const withEnvironment = report() as { environment: Record<string, string>; displayControlVariables: string[] };
  withEnvironment.environment = { OMP_NUM_THREADS: '4,3', OMP_STACKSIZE: '2M' };
  withEnvironment.displayControlVariables = ['OMP_NUM_THREADS=undefined', 'OMP_STACKSIZE=4M'];
  const roots = buildTree(parseReport(withEnvironment));
  assert.equal(roots[0].tooltip, ['Process ICVs', 'stacksize-var = 8388608', '',
    'OpenMP environment (what the program runs with):', 'OMP_NUM_THREADS=4,3', 'OMP_STACKSIZE=2M', '',
    "libomp's defaults (recorded before it read the environment):", 'OMP_NUM_THREADS=undefined', 'OMP_STACKSIZE=4M'].join('\n'));
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

/** The recorder's part of a document, as JsonReport writes it for recorder_deadlock and recorder_offload (README). */
function withRecorder(devices: InspectRecorder['devices']): { threads: Record<string, unknown>[]; recorder: InspectRecorder;
    problems: string[] } {
  const doc = report() as { threads: Record<string, unknown>[]; recorder: InspectRecorder; problems: string[] };
  doc.threads[0].whyHere = ['entered an explicit barrier at waits.c:40 (-812.000 ms)'];
  doc.threads[1].whyHere = ['asked for nested queuing lock 0x5555555580a0 at recorder_deadlock.c:59 (-12 us)',
    'waits for lock 0x5555555580a0, asked for at recorder_deadlock.c:59 (-12 us), which LWP 5664 (omp 2/3 · level 1 · '
      + 'wait_lock) acquired at recorder_deadlock.c:52 (-5.003 ms) and holds'];
  doc.threads[2].whyHere = [];
  doc.recorder = { module: '/root/.cache/jompd/recorder/1f/libjompd-recorder.so', monitoring: 'on', ringCapacity: 1024,
    newestEventNanos: '81234567890', registrations: { ompt_callback_mutex_acquire: 'always' },
    lockHolders: [{ waitId: '0x5555555580a0', kind: 'nest_lock', holderLwp: 5664, waiterLwps: [101] }],
    deadlocks: [[101, 5664]], devices };
  return doc;
}

const offloadDevice: InspectRecorder['devices'][number] = {
  device: 0, type: 'generic-64bit', initializeTimeNanos: '81227878000', loads: 1, tracing: 'unavailable',
  entryPoints: ['ompt_get_device_num_procs', 'ompt_get_device_time'], targetRegions: 2,
  lastTarget: { kind: 'target', codeptr: '0x55555555520f', timeNanos: '81234563890', lwp: 8376 },
  summary: 'device 0 (generic-64bit): initialised (-6.689 ms), 1 code image loaded (17192 bytes), 2 target regions, last: '
    + 'target at recorder_offload.c:29 by LWP 8376 (omp 0/1 · level 0 · work_serial) (-4 us); tracing unavailable: the '
    + 'device\'s lookup offers no ompt_start_trace, so no device-side records',
};

test('a thread the recorder explains has a "why here" row first, one row per sentence, long ones cut', () => {
  const roots = buildTree(parseReport(withRecorder([offloadDevice])));
  const threads = find(roots, (n) => n.kind === 'thread');
  const why = (thread: TreeNode) => thread.children.filter((n) => n.kind === 'whyHere');
  assert.equal(why(threads[0])[0], threads[0].children[0], 'why here comes before the ICVs and tasks');
  assert.deepEqual(why(threads[0])[0].children.map((n) => [n.label, n.tooltip]),
    [['entered an explicit barrier at waits.c:40 (-812.000 ms)', 'entered an explicit barrier at waits.c:40 (-812.000 ms)']]);
  const waiting = why(threads[1])[0];
  assert.equal(waiting.label, 'why here');
  assert.equal(waiting.children.length, 2);
  const long = waiting.children[1];
  assert.ok(long.label.length <= SENTENCE_LABEL_LENGTH && long.label.endsWith('…'), long.label);
  assert.ok(long.tooltip?.startsWith(long.label.slice(0, -1)), 'the label is the sentence\'s beginning');
  assert.match(long.tooltip ?? '', /which LWP 5664 .* acquired at recorder_deadlock\.c:52 \(-5\.003 ms\) and holds$/);
  assert.match(waiting.tooltip ?? '', /^asked for nested queuing lock .*\nwaits for lock /, 'every sentence on hover');
  assert.deepEqual([why(threads[2]), why(threads[3])], [[], []], 'no row for an empty whyHere or none');
  assert.ok(startsExpanded('whyHere'), 'the sentences show when the thread is opened');
});

test('the devices the recorder saw are a top-level node, each with its tracing state and summary', () => {
  const doc = withRecorder([offloadDevice, { device: 1, type: '', tracing: 'started', finalizeTimeNanos: '81234567000',
    entryPoints: [], summary: 'device 1 (type not given): initialised (-2 ms), finalised (-1 us), 0 target regions; tracing on, 3 records received' }]);
  doc.problems = ['thread gtid 3: cannot read th_team'];
  const roots = buildTree(parseReport(doc));
  assert.deepEqual(roots.map((n) => n.kind), ['process', 'region', 'idle', 'devices', 'problems']);
  const devices = roots[3];
  assert.deepEqual([devices.label, devices.description], ['Devices', '2 · jompd-recorder']);
  assert.ok(startsExpanded('devices'));
  const [zero, one] = devices.children;
  assert.deepEqual([zero.kind, zero.label, zero.description], ['device', 'device 0 (generic-64bit)', 'no device tracing']);
  assert.equal(zero.tooltip, `${offloadDevice.summary}\ntracing entry points: ompt_get_device_num_procs, ompt_get_device_time`);
  assert.deepEqual(zero.children.map((n) => [n.kind, n.tooltip]), [['sentence', offloadDevice.summary]]);
  assert.ok(zero.children[0].label.endsWith('…') && zero.children[0].label.length <= SENTENCE_LABEL_LENGTH);
  assert.deepEqual([one.label, one.description, one.children[0].tooltip],
    ['device 1 (type not given)', 'finalised · tracing on', 'device 1 (type not given): initialised (-2 ms), finalised (-1 us), 0 target regions; tracing on, 3 records received']);
  const ids = find(roots, () => true).map((n) => n.id);
  assert.equal(new Set(ids).size, ids.length, 'ids stay unique with the recorder\'s rows');
});

test('without the recorder, or with no device initialised, there is no why-here row and no Devices node', () => {
  const recorderRows = (nodes: TreeNode[]) => find(nodes, (n) => ['whyHere', 'sentence', 'devices', 'device'].includes(n.kind));
  assert.deepEqual(recorderRows(buildTree(parseReport(report()))), []);
  const hostOnly = buildTree(parseReport(withRecorder([])));
  assert.deepEqual(hostOnly.map((n) => n.kind), ['process', 'region', 'idle']);
  assert.equal(find(hostOnly, (n) => n.kind === 'whyHere').length, 2, 'why here still shows');
});

test('sentences are cut at a space near the limit, short ones kept whole', () => {
  assert.equal(truncated('waits at a barrier'), 'waits at a barrier');
  assert.equal(truncated('a'.repeat(SENTENCE_LABEL_LENGTH)), 'a'.repeat(SENTENCE_LABEL_LENGTH));
  assert.equal(truncated('one two three four', 12), 'one two…');
  assert.equal(truncated('x'.repeat(30), 10), `${'x'.repeat(9)}…`, 'no space: cut at the limit');
});

test('tasks not started: one row per deque or awaited task, one per construct and creator with its count', () => {
  const base = report() as Record<string, unknown>;
  const notStarted = (id: string, line: number, where: Record<string, unknown>) => ({
    task: { ...task(`0x${id}`, true, undefined), id, kind: 'explicit', status: 'not_started',
      function: { address: '0x9', symbol: '.omp_task_entry.', displayName: `task at d.c:${line}` } },
    creator: 't0', creatorAddress: '0x0a0', ...where,
  });
  const tasks = [
    notStarted('t5', 63, { queue: { gtid: 1, position: 0 } }), notStarted('t6', 63, { queue: { gtid: 1, position: 1 } }),
    notStarted('t7', 67, { queue: { gtid: 1, position: 2 } }),
    notStarted('t8', 73, { waitsFor: { task: 't7', address: '0x7', unmet: 1 } }),
  ];
  const roots = buildTree(parseReport({ ...base, tasksNotStarted: { tasks, deques: [{ gtid: 1, count: 5 }], notListed: 0 } }));
  assert.deepEqual(roots.map((n) => n.kind), ['process', 'region', 'idle', 'notStarted']);
  const node = roots[3];
  assert.equal(node.description, '4');
  assert.deepEqual(node.children.map((n) => [n.label, n.description]), [
    ['ready in the deque of thread 1 (gtid 1)', '3 of 5'], ['waiting for their dependences on t7', '1']]);
  assert.deepEqual(node.children[0].children.map((n) => [n.label, n.description, n.tooltip]), [
    ['2× task at d.c:63', 'created by t0', 't5, t6'], ['1× task at d.c:67', 'created by t0', 't7']]);
  assert.deepEqual(node.children[1].children.map((n) => n.tooltip), ['t8\n1 dependences unmet']);
  assert.equal(buildTree(parseReport(base)).some((n) => n.kind === 'notStarted'), false);
});

/** Every id of a tree, depth first. */
function ids(nodes: TreeNode[]): string[] {
  return nodes.flatMap((n) => [n.id, ...ids(n.children)]);
}

/** The nested 3 2 program's picture: the 2 x 2 one with a third inner team (r3) of threads 5 and 6. */
function threeTeams(): InspectReport {
  const base = parseReport(report());
  const r3 = { ...base.regions[2], id: 'r3', icvs: { 'levels-var': '2' } };
  const threads = [...base.threads, { ...base.threads[2], gtid: 5, lwp: 105, region: 'r3' },
    { ...base.threads[3], gtid: 6, lwp: 106, region: 'r3' }];
  return { ...base, regions: [...base.regions, r3], threads };
}

test('teams that read alike are rows of their own: each holds its own threads under an id no other row has', () => {
  const roots = buildTree(threeTeams(), 105);
  const inner = find(roots, (n) => n.kind === 'region' && n.label.startsWith('level 2'));
  assert.deepEqual(inner.map((n) => n.label), ['level 2 · team of 2', 'level 2 · team of 2', 'level 2 · team of 2']);
  assert.deepEqual(inner.map((n) => n.children.filter((c) => c.kind === 'thread' || c.kind === 'stoppedThread')
    .map((c) => c.label)), [['omp 0/2 · LWP 100', 'omp 1/2 · LWP 101'], ['omp 0/2 · LWP 102', 'omp 1/2 · LWP 103'],
    ['omp 0/2 · LWP 105', 'omp 1/2 · LWP 106']]);
  const all = ids(roots);
  assert.deepEqual(all.filter((id, i) => all.indexOf(id) !== i), [], 'ids used twice');
});

test('the same picture again is no refresh; another picture is', () => {
  const pictures = new TreePictures();
  assert.deepEqual(pictures.next(buildTree(threeTeams(), 105)), buildTree(threeTeams(), 105), 'the first picture is shown');
  assert.equal(pictures.next(buildTree(threeTeams(), 105)), undefined, 'the same picture is not shown again');
  assert.deepEqual(pictures.next(buildTree(threeTeams(), 106)), buildTree(threeTeams(), 106), 'another thread stopped');
  const message = pictures.next(messageTree('The program is running: the OpenMP picture comes at the next stop'));
  assert.deepEqual(message?.map((n) => n.label), ['The program is running: the OpenMP picture comes at the next stop']);
  assert.deepEqual(pictures.next(buildTree(threeTeams(), 105)), buildTree(threeTeams(), 105), 'the first picture again after another');
});
