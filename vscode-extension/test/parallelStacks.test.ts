import { test } from 'node:test';
import assert from 'node:assert/strict';
import { allBoxes, annotation, arrange, Box, boxHeaders, buildBoxes, escapeHtml, fitScale, frameSource, InspectStackNode, layout,
  Layout, Measure, ParallelStacksAnswer, parseAnswer, placeTree, ranges, renderChrome, renderGraph, runs, selection, sizeBoxes,
  StacksError, StacksThread, stepParts, stopBoxes, textsToMeasure, WRAP_INDENT } from '../src/parallelStacks';

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

/** A monospace font of 7 px a character, as the webview would measure it (headers 6 px). */
const mono: Measure = { step: (text) => 7 * text.length, header: (text) => 6 * text.length };

/** The stop's picture as the panel draws it, for a view of {@code view}. */
function drawn(answer: ParallelStacksAnswer, view = { width: 1000, height: 600 }, measure = mono):
    { placed: Layout & { scale: number; wrapAt: number }; html: string } {
  const placed = arrange(stopBoxes(answer), measure, boxHeaders(answer), view);
  return { placed, html: renderGraph(answer, placed) };
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
  const html = drawn(answer).html;
  assert.equal((html.match(/class="box/g) ?? []).length, 4);
  assert.ok(html.includes('240 threads · gtids <button class="gtid" data-gtid="16" title="Mark omp 1 · 0/16 · level 2 · wait_barrier_implicit">16</button>-'
    + '<button class="gtid" data-gtid="255"'), 'the thread set, each end of a run a button that marks its thread');
});

test('the answer\'s notices (no OMP_DEBUG: what to set) are said once above the picture; states read "not tracked"', () => {
  const answer = nested(2, 2);
  answer.threads.forEach((t) => { t.state = 'not tracked'; });
  answer.notices = ['thread states, wait ids, task frames and task functions are not tracked: start the program with OMP_DEBUG=enabled'];
  const html = renderChrome(answer, 1);
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
  const html = renderChrome(answer, 3) + drawn(answer).html;
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

test('a step wraps before its last "(…)" part: the function name stays whole', () => {
  assert.deepEqual(stepParts('innermost (nested.c:39)'), ['innermost', '(nested.c:39)']);
  assert.deepEqual(stepParts('parallel region at nested.c:53 (region.omp_outlined_debug__ at nested.c:56)'),
    ['parallel region at nested.c:53', '(region.omp_outlined_debug__ at nested.c:56)']);
  assert.deepEqual(stepParts('ns::f(int, char) (a.cpp:3)'), ['ns::f(int, char)', '(a.cpp:3)']);
  assert.deepEqual(stepParts('[libomp: runs the OpenMP code below (4 frames)]'), ['[libomp: runs the OpenMP code below', '(4 frames)]']);
  assert.equal(stepParts('_start'), undefined);
  assert.equal(stepParts('f(int)'), undefined);
});

test('boxes are as wide as their widest frame name and as high as their lines; a long name wraps past the wrap width', () => {
  const answer = nested(2, 2);
  const roots = stopBoxes(answer);
  const boxes = allBoxes(roots);
  const headers = boxHeaders(answer);
  sizeBoxes(boxes, mono, headers, Infinity);

  const marker = boxes.find((b) => b.steps.some((s) => s.text.startsWith('jompd_marker')))!;
  const widest = (box: Box) => Math.max(...box.steps.map((s) => s.text.length));
  for (const box of boxes) {
    const header = Math.min(360, Math.max(...headers(box).map((h) => 6 * h.length)));
    assert.equal(box.width, Math.max(7 * widest(box), header) + 26, `${box.id}: ${box.steps.map((s) => s.text).join(' / ')}`);
    assert.equal(box.height, (2 + box.steps.length) * 18 + 20);
    assert.ok(box.steps.every((s) => !s.wrapped));
  }
  assert.equal(roots[0].width, 7 * '[libomp: runs the OpenMP code below (4 frames)]'.length + 26);
  assert.equal(marker.width, Math.min(360, 6 * 'omp 0 · 0/2 · level 2 · work_parallel'.length) + 26, 'a one-step box as wide as its thread\'s name');
  // wrapped at 200 px: the steps wider than it take two lines, each part whole, the box as wide as its widest part
  sizeBoxes(boxes, mono, () => [], 200);
  const root = roots[0];
  assert.deepEqual(root.steps.map((s) => s.wrapped), [false, true, true, false]);
  assert.equal(root.width, Math.max(7 * 'region.omp_outlined'.length, 7 * '[libomp: runs the OpenMP code below'.length,
    WRAP_INDENT + 7 * '(nested.c:53)'.length) + 26);
  assert.equal(root.height, (2 + 4 + 2) * 18 + 20);
});

test('boxes of different widths: callees below callers, parents over their children, no box on another', () => {
  for (const [s1, s2, view] of [[4, 4, { width: 1000, height: 600 }], [3, 2, { width: 400, height: 900 }], [16, 16, { width: 2000, height: 300 }]] as const) {
    const { placed } = drawn(nested(s1, s2), view);
    for (const box of placed.boxes) {
      for (const child of box.children) {
        assert.equal(child.y, box.y + box.height + 36, `${child.id} right below ${box.id}`);
      }
      if (box.children.length > 0) {
        const first = box.children[0];
        const last = box.children[box.children.length - 1];
        const centre = (first.x + first.width / 2 + last.x + last.width / 2) / 2;
        assert.ok(Math.abs(box.x + box.width / 2 - centre) < 1e-9 || box.x === Math.min(...allBoxes([box]).map((b) => b.x)),
          `${box.id} centred over its children (or its subtree shifted right of it)`);
      }
      for (const other of placed.boxes) {
        if (other === box) continue;
        const apart = other.x >= box.x + box.width || box.x >= other.x + other.width || other.y >= box.y + box.height
          || box.y >= other.y + other.height;
        assert.ok(apart, `${box.id} and ${other.id} overlap`);
      }
      assert.ok(box.x >= 8 && box.y >= 8 && box.x + box.width <= placed.width - 8 && box.y + box.height <= placed.height - 8);
    }
  }
});

test('a parent wider than its children pushes its subtree right, clear of the subtree before it', () => {
  const box = (id: string, width: number, children: Box[] = []): Box =>
    ({ id, steps: [], gtids: [], children, stopped: false, x: 0, y: 0, width, height: 50 });
  const roots = [box('a', 100), box('p', 500, [box('c1', 100), box('c2', 100)])];
  const placed = placeTree(roots);
  assert.deepEqual(placed.boxes.map((b) => [b.id, b.x, b.y]), [['a', 8, 8], ['p', 132, 8], ['c1', 132 + 138, 94], ['c2', 132 + 262, 94]]);
  assert.equal(placed.width, 132 + 500 + 8);
  assert.equal(placed.height, 94 + 50 + 8);
});

test('the fit scale shows the whole graph, never above its own size', () => {
  assert.equal(fitScale({ width: 2000, height: 500 }, { width: 1000, height: 1000 }), 0.5);
  assert.equal(fitScale({ width: 500, height: 2000 }, { width: 1000, height: 1000 }), 0.5);
  assert.equal(fitScale({ width: 500, height: 500 }, { width: 1000, height: 1000 }), 1);
});

test('the wrap width chosen lets the graph be drawn largest: none for a wide view, some for a narrow tall one', () => {
  const answer = nested(3, 2);
  // a wider font (10 px a character): the longest names (47 characters) are wider than some wrap widths
  const wideFont: Measure = { step: (text) => 10 * text.length, header: (text) => 8 * text.length };
  const wide = drawn(answer, { width: 3000, height: 400 }, wideFont).placed;
  assert.equal(wide.wrapAt, Infinity);
  assert.equal(wide.scale, fitScale(wide, { width: 3000, height: 400 }));
  const narrow = drawn(answer, { width: 400, height: 2000 }, wideFont).placed;
  assert.ok(narrow.wrapAt < Infinity, `wrapped at ${narrow.wrapAt}`);
  assert.equal(narrow.scale, fitScale(narrow, { width: 400, height: 2000 }));
  // every other wrap width fits no larger
  for (const wrapAt of [Infinity, 560, 440, 340]) {
    const roots = stopBoxes(answer);
    sizeBoxes(allBoxes(roots), wideFont, boxHeaders(answer), wrapAt);
    assert.ok(fitScale(placeTree(roots), { width: 400, height: 2000 }) <= narrow.scale + 0.005, `wrap at ${wrapAt}`);
  }
  const html = drawn(answer, { width: 400, height: 2000 }, wideFont).html;
  assert.ok(html.includes('class="step runtime wrapped"'), 'a wrapped step is drawn as such');
  assert.ok(html.includes('<span class="fn">region.omp_outlined</span><span class="at"> (nested.c:53)</span>'));
});

test('the webview is asked to measure every text once: steps whole and in parts, header lines', () => {
  const answer = nested(2, 2);
  const boxes = allBoxes(stopBoxes(answer));
  const texts = textsToMeasure(boxes, boxHeaders(answer));
  assert.deepEqual(new Set(texts.step), new Set(boxes.flatMap((b) => b.steps.flatMap((s) => [s.text, ...(stepParts(s.text) ?? [])]))));
  assert.equal(texts.step.length, new Set(texts.step).size);
  assert.ok(texts.header.includes('▶ 1 thread · gtid 0'));
  assert.ok(texts.header.includes('omp 0 · 0/2 · level 2 · work_parallel'));
  assert.deepEqual(runs([9, 3, 4, 5, 0]), [[0, 0], [3, 5], [9, 9]]);
});

test('the bar offers every thread to mark, by gtid and name', () => {
  const answer = nested(2, 2);
  const options = [...renderChrome(answer, 4).matchAll(/<option value="(\d+)">([^<]*)<\/option>/g)].map((m) => [Number(m[1]), m[2]]);
  assert.deepEqual(options, answer.threads.map((t) => [t.gtid, `gtid ${t.gtid} · ${t.name}`]));
});
