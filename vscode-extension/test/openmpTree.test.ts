import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildTree, icvTooltip, parseReport, SchemaError, shortState, TreeNode } from '../src/openmpTree';

const toolData = { value: '0', ptr: '0x0' };

/** A 2 x 2 nested program: one outer region (r1), two inner ones (r0, r2), four threads, one idle. */
function report(): unknown {
  const thread = (gtid: number, threadNum: number, region: string | null) => ({
    gtid, lwp: 100 + gtid, pthread: `0x${gtid}000`, threadNum, state: 'ompt_state_wait_barrier_explicit', waitId: '0x0',
    region, toolData, icvs: { 'thread-num-var': String(threadNum) },
    tasks: [{ address: `0x${gtid}a0`, flags: { explicit: false, final: false, tied: true, started: true, executing: true,
      complete: false, taskSerial: false, teamSerial: false }, function: { address: '0x1', symbol: 'main.omp_outlined' },
      icvs: { 'run-sched-var': 'static,0' } }],
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
  assert.equal(find(roots, (n) => n.kind === 'thread').length, 5);
});

test('threads show their state, tasks and ICVs (on expansion and on hover)', () => {
  const roots = buildTree(parseReport(report()));
  const thread = find(roots, (n) => n.kind === 'thread')[0];
  assert.equal(thread.description, 'wait_barrier_explicit');
  assert.match(thread.tooltip ?? '', /thread-num-var = 0/);
  const icvs = thread.children.find((n) => n.kind === 'icvs');
  assert.deepEqual(icvs?.children.map((n) => [n.label, n.description]), [['thread-num-var', '0']]);
  const task = thread.children.find((n) => n.kind === 'task');
  assert.equal(task?.label, 'implicit tied task');
  assert.equal(task?.description, 'main.omp_outlined');
  assert.match(task?.tooltip ?? '', /run-sched-var = static,0/);
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
