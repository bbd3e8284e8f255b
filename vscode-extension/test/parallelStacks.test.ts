import { test } from 'node:test';
import assert from 'node:assert/strict';
import { annotation, buildBoxes, escapeHtml, frameSource, InspectStackNode, layout, ParallelStacksAnswer, parseAnswer,
  ranges, renderHtml, selection, StacksError, StacksThread } from '../src/parallelStacks';

const node = (step: string, gtids: number[], children: InspectStackNode[] = [], runtime = false): InspectStackNode =>
  ({ step, runtime, gtids, children });

/**
 * The shape of `nested S1 S2` at its marker: every thread starts in main or in libomp's worker start, the
 * marker thread (gtid 0) goes on to jompd_marker, all others wait at the gate.
 */
function nested(s1: number, s2: number): ParallelStacksAnswer {
  const all = Array.from({ length: s1 * s2 }, (_, i) => i);
  const initial = [0, ...all.slice(1, s2)]; // threads of the initial thread's inner team start in main
  const workers = all.filter((g) => !initial.includes(g));
  const gate = (gtids: number[]) => node('fx_gate_wait (fixture.c:120)', gtids, [node('[libomp: in __kmp_yield (1 frame)]', gtids, [], true)]);
  const tree = [
    node('main (nested.c:87)', initial, [
      node('[libomp: runs the OpenMP code below (4 frames)]', initial, [
        node('region.omp_outlined (nested.c:53)', initial, [
          node('innermost (nested.c:39)', initial, [
            node('jompd_marker (fixture.c:27)', [0]),
            gate(initial.slice(1)),
          ]),
        ]),
      ], true),
    ]),
    node('[libomp: runs the OpenMP code below (6 frames)]', workers, [
      node('region.omp_outlined (nested.c:53)', workers, [node('innermost (nested.c:39)', workers, [gate(workers)])]),
    ], true),
  ];
  const threads: StacksThread[] = all.map((gtid) => ({
    gtid, threadId: gtid + 1, name: `omp ${Math.floor(gtid / s2)} · ${gtid % s2}/${s2} · level 2 · ${gtid === 0 ? 'work_parallel' : 'wait_barrier_implicit'}`,
    threadNum: gtid % s2, state: gtid === 0 ? 'work_parallel' : 'wait_barrier_implicit', region: `r${1 + Math.floor(gtid / s2)}`,
    teamPath: [Math.floor(gtid / s2)],
    stepFrames: initial.includes(gtid) ? (gtid === 0 ? [9, 5, 4, 3, 0] : [9, 5, 4, 3, 2, 0]) : [8, 3, 2, 1, 0],
  }));
  if (threads.length > 5) threads[5].threadId = undefined; // a thread the debugger does not list
  return {
    stop: 1, threadId: 1, diagnosis: [{ summary: 'team r1: all 16 threads <wait>', evidence: ['OMPD state'] }], threads,
    stacks: { tree, threads: [{ gtid: 0, frames: [{ pc: '0x1', function: 'jompd_marker', source: '/src/fixture.c:27', owner: 'task' }] }] },
  };
}

test('a chain all the same threads pass through is one box; where paths part, callees get boxes', () => {
  const answer = nested(4, 4);
  const roots = buildBoxes(answer.stacks.tree, 0);
  assert.equal(roots.length, 2);
  assert.deepEqual(roots[0].steps.map((s) => s.text), ['main (nested.c:87)', '[libomp: runs the OpenMP code below (4 frames)]',
    'region.omp_outlined (nested.c:53)', 'innermost (nested.c:39)']);
  assert.deepEqual(roots[0].steps.map((s) => s.depth), [0, 1, 2, 3]);
  assert.deepEqual(roots[0].children.map((c) => c.gtids.length), [1, 3]);
  assert.equal(roots[0].children[1].steps[0].depth, 4);
  assert.equal(roots[0].stopped, true);
  assert.equal(roots[0].children[0].stopped, true);
  assert.equal(roots[0].children[1].stopped, false);
  assert.equal(roots[1].stopped, false);
});

test('the layout puts callees below their callers, parents over their children, and no boxes on each other', () => {
  const placed = layout(buildBoxes(nested(4, 4).stacks.tree, 0));
  for (const box of placed.boxes) {
    for (const child of box.children) {
      assert.ok(child.y >= box.y + box.height, `${child.id} below ${box.id}`);
      assert.ok(box.x >= box.children[0].x && box.x <= box.children[box.children.length - 1].x);
    }
    for (const other of placed.boxes) {
      if (other === box) continue;
      const apart = other.x >= box.x + box.width || box.x >= other.x + other.width || other.y >= box.y + box.height
        || box.y >= other.y + other.height;
      assert.ok(apart, `${box.id} and ${other.id} overlap`);
    }
    assert.ok(box.x + box.width <= placed.width && box.y + box.height <= placed.height);
  }
});

test('256 threads (nested 16 16) stay a handful of boxes with short thread sets and annotations', () => {
  const answer = nested(16, 16);
  const placed = layout(buildBoxes(answer.stacks.tree, 0));
  assert.equal(placed.boxes.length, 4);
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  const workers = placed.boxes.find((b) => b.gtids.length === 240)!;
  assert.equal(ranges(workers.gtids), '16-255');
  assert.equal(annotation(workers.gtids, threads), '240 wait_barrier_implicit · 15 regions');
  assert.ok(placed.width < 4 * 400, `width ${placed.width}`);
  const html = renderHtml(answer);
  assert.equal((html.match(/class="box/g) ?? []).length, 4);
  assert.ok(html.includes('240 threads · gtids 16-255'));
});

test('the answer\'s notices (no OMP_DEBUG: what to set) are said once above the picture; states read "not tracked"', () => {
  const answer = nested(2, 2);
  answer.threads.forEach((t) => { t.state = 'not tracked'; });
  answer.notices = ['thread states, wait ids, task frames and task functions are not tracked: start the program with OMP_DEBUG=enabled'];
  const html = renderHtml(answer);
  assert.deepEqual(html.match(/<p class="note">[^<]*<\/p>/g), [`<p class="note">note: ${answer.notices[0]}</p>`]);
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  assert.equal(annotation(answer.threads.map((t) => t.gtid), threads).split(' · ')[0], `${answer.threads.length} not tracked`);
});

test('a box of one thread is annotated with its name, of several with states and regions', () => {
  const answer = nested(2, 2);
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  assert.equal(annotation([0], threads), 'omp 0 · 0/2 · level 2 · work_parallel');
  assert.equal(annotation([0, 1, 2], threads), '2 wait_barrier_implicit, 1 work_parallel · region r1, r2');
});

test('a click offers the box\'s threads with the frame of that step, the stopped thread first', () => {
  const answer = nested(4, 4);
  answer.threadId = 3; // gtid 2 stopped
  const roots = buildBoxes(answer.stacks.tree, 2);
  const gateBox = roots[0].children[1];
  const chosen = selection(answer, gateBox.id, 4)!;
  assert.equal(chosen.step, 'fx_gate_wait (fixture.c:120)');
  assert.deepEqual(chosen.candidates.map((c) => [c.gtid, c.threadId, c.frame]), [[2, 3, 2], [1, 2, 2], [3, 4, 2]]);
  assert.equal(chosen.unmapped, 0);
  const workers = selection(answer, roots[1].id, 2)!;
  assert.equal(workers.unmapped, 1); // gtid 5: no DAP thread
  assert.ok(workers.candidates.every((c) => c.frame === 2));
  assert.equal(selection(answer, 'b99', 0), undefined);
  assert.equal(selection(answer, gateBox.id, 0), undefined); // depth 0 is not in that box
});

test('frames\' sources come from the unwinder\'s frames', () => {
  assert.deepEqual(frameSource(nested(2, 2), 0, 0), { file: '/src/fixture.c', line: 27 });
  assert.equal(frameSource(nested(2, 2), 0, 7), undefined);
});

test('the picture escapes what the program named, and draws one edge per callee', () => {
  const answer = nested(2, 2);
  const html = renderHtml(answer);
  assert.ok(html.includes('team r1: all 16 threads &lt;wait&gt;'));
  assert.ok(!html.includes('<wait>'));
  assert.equal((html.match(/class="edge/g) ?? []).length, 2);
  assert.equal((html.match(/class="edge stopped/g) ?? []).length, 1);
  assert.ok(!html.includes('style='), 'no inline styles: the content security policy forbids them');
  assert.equal(escapeHtml('<a href="x">\'&'), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;');
});

test('the server\'s "no stop" answer is a message; a malformed answer an error', () => {
  assert.deepEqual(parseAnswer({ stop: null, state: 'running', reason: 'the program is running' }),
    { message: 'No parallel stacks: the program is running' });
  assert.throws(() => parseAnswer({ stop: 3 }), StacksError);
  assert.equal((parseAnswer(nested(2, 2)) as ParallelStacksAnswer).stop, 1);
});
