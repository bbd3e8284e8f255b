// The OpenMP Parallel Stacks picture: built from the server's jompd/parallelStacks answer (the command line's
// `stacks` JSON, the diagnosis, DAP thread ids and frame indices), laid out as a tree of boxes and drawn as
// HTML + SVG, each box as wide as its frame names as the webview measures them and the graph fitted to the view.
// No VS Code API here, so it is unit-tested. InspectStacks* are the schema's types
// (test/schemaTypes.test.ts checks them against jompd-inspect.schema.json's `stacks`).

import { edgePath } from './boxEdges';

/** The OpenMP construct whose code a frame runs, as the picture knows it; source: the construct's file:line. */
export interface InspectConstruct { kind: 'parallel' | 'task'; source?: string }

export interface InspectStackFrame {
  pc: string; function?: string; source?: string; module?: string; inlined?: boolean;
  owner: 'task' | 'runtime_for_task' | 'runtime'; task?: string; construct?: InspectConstruct;
}

export interface InspectStackThread { gtid: number; truncated?: string; frames: InspectStackFrame[] }

export interface InspectStackNode {
  step: string; runtime: boolean; gtids: number[]; children: InspectStackNode[]; construct?: InspectConstruct;
}

export interface InspectStacks { threads: InspectStackThread[]; tree: InspectStackNode[] }

/** What jompd/parallelStacks adds per OpenMP thread: its DAP id, OpenMP identity and each step's frame. */
export interface StacksThread {
  gtid: number; threadId?: number; name: string; threadNum: number; state?: string; region?: string;
  teamPath: number[];
  /** Per step of the thread's path (the tree's depth), the frame index it stands for (0 = innermost); null: no frame. */
  stepFrames?: (number | null)[];
  stepFramesUnknown?: string;
}

export interface Finding { summary: string; evidence: string[] }

export interface ParallelStacksAnswer {
  stop: number; threadId: number; stacks: InspectStacks; threads: StacksThread[]; diagnosis: Finding[];
  notices?: string[]; // what the reader should know (no OMP_DEBUG), said once
}

/**
 * One step in a box: a frame of user code or a folded run of libomp's frames, at depth {@code depth}; wrapped:
 * drawn on two lines, its "(…)" part below its function (see {@link stepParts}).
 */
export interface BoxStep { text: string; runtime: boolean; depth: number; wrapped?: boolean }

/** One box of the picture: a chain of steps all its threads share, then its callees' boxes. */
export interface Box {
  id: string; steps: BoxStep[]; gtids: number[]; children: Box[];
  /** The stopped thread passes through this box. */
  stopped: boolean;
  /** Where the box is drawn. */
  x: number; y: number; width: number; height: number;
}

export interface Layout { boxes: Box[]; roots: Box[]; width: number; height: number }

export const BOX_WIDTH = 340;
export const LINE_HEIGHT = 18;
/** Lines of a box besides its steps: the thread count and set, the OpenMP annotation. */
export const HEADER_LINES = 2;
const PADDING = 8;
const GAP_X = 24;
const GAP_Y = 36;

export class StacksError extends Error {}

/** The server's answer, checked for the fields the picture needs; the "no stop" answer gives a message instead. */
export function parseAnswer(body: unknown): ParallelStacksAnswer | { message: string } {
  const answer = body as Partial<ParallelStacksAnswer> & { reason?: string } | undefined;
  if (answer && answer.stop === null) {
    return { message: `No parallel stacks: ${answer.reason ?? 'the program is not stopped'}` };
  }
  if (!answer || typeof answer !== 'object' || !answer.stacks || !Array.isArray(answer.stacks.tree)
    || !Array.isArray(answer.threads) || !Array.isArray(answer.diagnosis)) {
    throw new StacksError('jompd/parallelStacks: an answer without stacks, threads and diagnosis');
  }
  return answer as ParallelStacksAnswer;
}

/**
 * The merged tree as boxes: as in Visual Studio's Parallel Stacks window, a chain of nodes that the same
 * threads pass through is one box (its steps in call order, outermost first); where paths part, each callee
 * starts a box of its own. {@code stoppedGtid} marks the stopped thread's boxes.
 */
export function buildBoxes(tree: InspectStackNode[], stoppedGtid?: number): Box[] {
  let next = 0;
  const box = (node: InspectStackNode, depth: number): Box => {
    const steps: BoxStep[] = [];
    let current = node;
    let d = depth;
    for (;;) {
      steps.push({ text: current.step, runtime: current.runtime, depth: d });
      if (current.children.length !== 1 || current.children[0].gtids.length !== current.gtids.length) break;
      current = current.children[0];
      d++;
    }
    const id = `b${next++}`;
    const children = current.children.map((child) => box(child, d + 1));
    return { id, steps, gtids: [...node.gtids], children, stopped: stoppedGtid !== undefined && node.gtids.includes(stoppedGtid),
      x: 0, y: 0, width: BOX_WIDTH, height: (HEADER_LINES + steps.length) * LINE_HEIGHT + 2 * PADDING };
  };
  return tree.map((root) => box(root, 0));
}

/**
 * A tidy tree layout of boxes of one width (the job picture's), callers above callees: leaves take consecutive
 * columns, a parent is centred over its children, and each level starts below the tallest box of the level
 * above. The stop's picture sizes its boxes to their texts and places them with {@link arrange}.
 */
export function layout(roots: Box[]): Layout {
  const boxes: Box[] = [];
  const levelHeights: number[] = [];
  const measure = (box: Box, level: number): void => {
    levelHeights[level] = Math.max(levelHeights[level] ?? 0, box.height);
    box.children.forEach((child) => measure(child, level + 1));
  };
  roots.forEach((root) => measure(root, 0));
  const levelTops: number[] = [];
  levelHeights.reduce((top, height, level) => {
    levelTops[level] = top;
    return top + height + GAP_Y;
  }, PADDING);
  let column = 0;
  const place = (box: Box, level: number): void => {
    boxes.push(box);
    box.y = levelTops[level];
    if (box.children.length === 0) {
      box.x = PADDING + column++ * (BOX_WIDTH + GAP_X);
      return;
    }
    box.children.forEach((child) => place(child, level + 1));
    box.x = (box.children[0].x + box.children[box.children.length - 1].x) / 2;
  };
  roots.forEach((root) => place(root, 0));
  const width = Math.max(0, ...boxes.map((b) => b.x + b.width)) + PADDING;
  const height = Math.max(0, ...boxes.map((b) => b.y + b.height)) + PADDING;
  return { boxes, roots, width, height };
}

/** How wide a text is drawn, in CSS pixels: the webview measures the strings in the fonts it draws them with. */
export interface Measure {
  /** A step's text (or a part of it) in the steps' font. */
  step(text: string): number;
  /** A box's header line (its thread set, its OpenMP annotation) in the header's font. */
  header(text: string): number;
}

/** The size of the view the graph is drawn in, in CSS pixels. */
export interface ViewSize { width: number; height: number }

/** Besides its text, a box's width holds its padding, borders (2 px when marked) and a step's own padding. */
const BOX_CHROME = 2 * PADDING + 2 * 2 + 4 + 2;
/** Where a wrapped step's second line starts, to the right of its first. */
export const WRAP_INDENT = 16;
/** A header wider than the box's steps widens the box up to this; beyond, it is cut (its tooltip has it all). */
const HEADER_MAX = 360;
/** The widths a long step wraps at, tried in turn: the one that lets the graph be drawn largest in the view wins. */
const WRAP_WIDTHS = [Infinity, 560, 440, 340];

/**
 * Where a step may wrap: before its last " (…)" part (the source, or what a folded run of libomp does), so the
 * function name stays whole on the first line; undefined for a step without such a part.
 */
export function stepParts(text: string): [string, string] | undefined {
  const at = text.lastIndexOf(' (');
  if (at <= 0 || !/\)\]?$/.test(text)) return undefined;
  return [text.slice(0, at), text.slice(at + 1)];
}

/** Every string a box is drawn with, for the webview to measure: its steps whole and in parts, and its header lines. */
export function textsToMeasure(boxes: Box[], headers: (box: Box) => string[]): { step: string[]; header: string[] } {
  const step = new Set<string>();
  const header = new Set<string>();
  for (const box of boxes) {
    for (const s of box.steps) {
      step.add(s.text);
      stepParts(s.text)?.forEach((part) => step.add(part));
    }
    headers(box).forEach((h) => header.add(h));
  }
  return { step: [...step], header: [...header] };
}

/**
 * Sizes each box to its texts: as wide as its widest step (a step wider than {@code wrapAt} wraps before its
 * "(…)" part, the function name whole on its first line), or its header up to HEADER_MAX; as high as its lines.
 */
export function sizeBoxes(boxes: Box[], measure: Measure, headers: (box: Box) => string[], wrapAt: number): void {
  for (const box of boxes) {
    let content = 0;
    let lines = HEADER_LINES;
    for (const step of box.steps) {
      const whole = measure.step(step.text);
      const parts = stepParts(step.text);
      step.wrapped = whole > wrapAt && parts !== undefined;
      content = Math.max(content, step.wrapped && parts ? Math.max(measure.step(parts[0]), WRAP_INDENT + measure.step(parts[1])) : whole);
      lines += step.wrapped ? 2 : 1;
    }
    const header = Math.max(0, ...headers(box).map((h) => measure.header(h)));
    box.width = Math.ceil(Math.max(content, Math.min(header, HEADER_MAX))) + BOX_CHROME;
    box.height = lines * LINE_HEIGHT + 2 * PADDING + 4;
  }
}

/**
 * A tidy tree of boxes of any width, callers above callees: each subtree takes the columns its boxes need, side
 * by side in order, a parent centred over its children (its subtree widened when the parent is wider), each
 * callee {@code GAP_Y} below its caller. Subtrees never share columns, so no box lies on another.
 */
export function placeTree(roots: Box[]): Layout {
  const boxes: Box[] = [];
  const shift = (box: Box, dx: number): void => {
    box.x += dx;
    box.children.forEach((child) => shift(child, dx));
  };
  /** Places the subtree with its left edge at 0 and its top at {@code top}; answers its width. */
  const place = (box: Box, top: number): number => {
    boxes.push(box);
    box.y = top;
    if (box.children.length === 0) {
      box.x = 0;
      return box.width;
    }
    let cursor = 0;
    for (const child of box.children) {
      const width = place(child, top + box.height + GAP_Y);
      shift(child, cursor);
      cursor += width + GAP_X;
    }
    const first = box.children[0];
    const last = box.children[box.children.length - 1];
    box.x = (first.x + first.width / 2 + last.x + last.width / 2) / 2 - box.width / 2;
    if (box.x < 0) {
      const dx = -box.x;
      box.children.forEach((child) => shift(child, dx));
      box.x = 0;
      cursor += dx;
    }
    return Math.max(cursor - GAP_X, box.x + box.width);
  };
  let cursor = PADDING;
  for (const root of roots) {
    const width = place(root, PADDING);
    shift(root, cursor);
    cursor += width + GAP_X;
  }
  const width = Math.max(0, ...boxes.map((b) => b.x + b.width)) + PADDING;
  const height = Math.max(0, ...boxes.map((b) => b.y + b.height)) + PADDING;
  return { boxes, roots, width, height };
}

/** The scale that shows the whole graph in the view: never above 1 (text at its own size). */
export function fitScale(placed: { width: number; height: number }, view: ViewSize): number {
  if (placed.width <= 0 || placed.height <= 0) return 1;
  return Math.min(1, view.width / placed.width, view.height / placed.height);
}

/** The boxes of a tree, callers before callees. */
export function allBoxes(roots: Box[]): Box[] {
  return roots.flatMap((root) => [root, ...allBoxes(root.children)]);
}

/**
 * The boxes sized to their measured texts and placed for {@code view}: of the widths long steps may wrap at, the
 * one whose graph fits the view at the largest scale (the least wrapping among equals).
 */
export function arrange(roots: Box[], measure: Measure, headers: (box: Box) => string[], view: ViewSize):
    Layout & { scale: number; wrapAt: number } {
  const boxes = allBoxes(roots);
  let best = { wrapAt: Infinity, scale: -1 };
  for (const wrapAt of WRAP_WIDTHS) {
    sizeBoxes(boxes, measure, headers, wrapAt);
    const scale = fitScale(placeTree(roots), view);
    if (scale > best.scale + 0.005) best = { wrapAt, scale };
  }
  sizeBoxes(boxes, measure, headers, best.wrapAt);
  return { ...placeTree(roots), ...best };
}

/** Sorted numbers as ranges: 0, 3-5, 9. */
export function ranges(numbers: number[]): string {
  return runs(numbers).map(([a, b]) => a === b ? `${a}` : `${a}-${b}`).join(', ');
}

/** Counted values, most frequent first: "15 wait_barrier_implicit, 1 work_parallel". */
function counted(values: string[]): string {
  const counts = new Map<string, number>();
  values.forEach((v) => counts.set(v, (counts.get(v) ?? 0) + 1));
  return [...counts].sort((a, b) => b[1] - a[1]).map(([value, n]) => `${n} ${value}`).join(', ');
}

/** The OpenMP annotation of a box's threads: their states, regions and team paths, in few words. */
export function annotation(gtids: number[], threads: Map<number, StacksThread>): string {
  const members = gtids.map((g) => threads.get(g)).filter((t): t is StacksThread => t !== undefined);
  if (members.length === 1) {
    return members[0].name;
  }
  const states = counted(members.map((t) => t.state ?? 'state unknown'));
  const regions = [...new Set(members.map((t) => t.region ?? 'no team'))];
  const regionText = regions.length <= 3 ? `region ${regions.join(', ')}` : `${regions.length} regions`;
  return `${states} · ${regionText}`;
}

/** The box's threads as a set: "16 threads · gtids 0, 9-23". */
export function threadSet(gtids: number[]): string {
  return `${gtids.length} thread${gtids.length === 1 ? '' : 's'} · gtid${gtids.length === 1 ? '' : 's'} ${ranges(gtids)}`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** Sorted numbers as runs of consecutive numbers: [[0, 0], [3, 5], [9, 9]]. */
export function runs(numbers: number[]): [number, number][] {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: [number, number][] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push([sorted[i], sorted[j]]);
    i = j;
  }
  return parts;
}

/** The stop's boxes, the stopped thread's marked. */
export function stopBoxes(answer: ParallelStacksAnswer): Box[] {
  const stopped = answer.threads.find((t) => t.threadId === answer.threadId);
  return buildBoxes(answer.stacks.tree, stopped?.gtid);
}

/** A box's header lines as drawn: its thread set (▶ when the stopped thread is in it), its OpenMP annotation. */
export function boxHeaders(answer: ParallelStacksAnswer): (box: Box) => string[] {
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  return (box) => [`${box.stopped ? '▶ ' : ''}${threadSet(box.gtids)}`, annotation(box.gtids, threads)];
}

/**
 * What stands around the graph, in two lines to leave the graph the height: a bar to find a frame by name, mark a
 * thread, the summary and zoom; the diagnosis (its first finding, the others and the evidence when opened); and the
 * (empty) view the graph is drawn in, whose size the webview reports with its measures.
 */
export function renderChrome(answer: ParallelStacksAnswer, boxCount: number): string {
  const stopped = answer.threads.find((t) => t.threadId === answer.threadId);
  const findings = answer.diagnosis.map((f) => `<li><details><summary>${escapeHtml(f.summary)}</summary><ul>${
    f.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul></details></li>`).join('');
  const options = [...answer.threads].sort((a, b) => a.gtid - b.gtid)
    .map((t) => `<option value="${t.gtid}">gtid ${t.gtid} · ${escapeHtml(t.name)}</option>`).join('');
  const first = answer.diagnosis[0]?.summary;
  return `<div class="bar">`
    + `<input id="find" type="search" placeholder="Find a frame by name" aria-label="Find a frame by name" spellcheck="false">`
    + `<span id="found" role="status"></span>`
    + `<select id="thread" aria-label="Mark a thread"><option value="">Mark a thread…</option>${options}</select>`
    + `<span class="summary" title="click a frame to select it in the debugger, a gtid to mark its thread; drag or wheel to pan, `
    + `Ctrl+wheel to zoom">${answer.threads.length} OpenMP threads in ${boxCount} boxes`
    + `${stopped ? ` · ▶ stopped: ${escapeHtml(stopped.name)}` : ''}</span>`
    + `<span class="zoom"><button id="zoom-out" title="Zoom out (Ctrl+wheel)">−</button><span id="zoom-level"></span>`
    + `<button id="zoom-in" title="Zoom in (Ctrl+wheel)">+</button><button id="fit" title="Fit the whole graph in the view">Fit</button>`
    + `<button id="actual" title="Text at its own size">100%</button></span></div>`
    + `<details class="diagnosis"><summary>Diagnosis${answer.diagnosis.length > 1 ? ` (${answer.diagnosis.length} findings)` : ''}: `
    + `${escapeHtml(first ?? 'no findings')}</summary><ul>${findings}</ul></details>`
    // what the reader should know (no OMP_DEBUG: why states are not tracked, what to set), once above the picture
    + (answer.notices ?? []).map((n) => `<p class="note">note: ${escapeHtml(n)}</p>`).join('')
    + `<div id="viewport" tabindex="0"></div>`;
}

/**
 * The graph as HTML: the boxes (absolutely placed divs, each step a button carrying its box and depth, its
 * function and its "(…)" part in spans so a wrapped step breaks between them; each gtid of the header a button
 * that marks its thread) over an SVG of the caller-to-callee edges, the stopped thread's path marked. Places and
 * sizes are data attributes, which the webview's script applies: its content security policy allows no inline
 * style attributes.
 */
export function renderGraph(answer: ParallelStacksAnswer, placed: Layout): string {
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  const edges = placed.boxes.flatMap((box) => box.children.map((child) =>
    `<path class="edge${child.stopped ? ' stopped' : ''}" data-from="${box.id}" data-to="${child.id}" `
      + `d="${edgePath(box, child)}" marker-end="url(#arrow)"/>`)).join('');
  const gtid = (g: number) => `<button class="gtid" data-gtid="${g}" title="Mark ${escapeHtml(threads.get(g)?.name ?? `gtid ${g}`)}">${g}</button>`;
  const boxes = placed.boxes.map((box) => {
    const steps = box.steps.map((step) => {
      const parts = stepParts(step.text);
      const text = parts ? `<span class="fn">${escapeHtml(parts[0])}</span><span class="at"> ${escapeHtml(parts[1])}</span>`
        : `<span class="fn">${escapeHtml(step.text)}</span>`;
      return `<button class="step${step.runtime ? ' runtime' : ''}${step.wrapped ? ' wrapped' : ''}" data-box="${box.id}" `
        + `data-depth="${step.depth}" title="${escapeHtml(step.text)}">${text}</button>`;
    }).join('');
    const names = box.gtids.slice(0, 64).map((g) => threads.get(g)?.name ?? `gtid ${g}`).join('\n')
      + (box.gtids.length > 64 ? `\n… ${box.gtids.length - 64} more` : '');
    const n = box.gtids.length;
    const set = runs(box.gtids).map(([a, b]) => a === b ? gtid(a) : `${gtid(a)}-${gtid(b)}`).join(', ');
    return `<div class="box${box.stopped ? ' stopped' : ''}" id="${box.id}" data-gtids="${box.gtids.join(',')}" `
      + `data-left="${box.x}" data-top="${box.y}" data-width="${box.width}" data-height="${box.height}">`
      + `<div class="threads" title="${escapeHtml(names)}">${box.stopped ? '<span class="here">▶</span> ' : ''}`
      + `${n} thread${n === 1 ? '' : 's'} · gtid${n === 1 ? '' : 's'} ${set}</div>`
      + `<div class="omp">${escapeHtml(annotation(box.gtids, threads))}</div>${steps}</div>`;
  }).join('');
  return `<div class="graph" data-width="${placed.width}" data-height="${placed.height}">`
    + `<svg width="${placed.width}" height="${placed.height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" `
    + `markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${edges}</svg>`
    + `${boxes}</div>`;
}

/** What a click on a step of a box asks for: the threads that can be selected there and the frame of each. */
export interface Selection {
  /** The step's text. */
  step: string;
  candidates: { threadId: number; name: string; gtid: number; frame: number | null }[];
  /** Threads of the box the debugger does not list, or whose path did not map to frames. */
  unmapped: number;
}

/** The threads of box {@code boxId} and the frame each has at {@code depth}; the stopped thread first. */
export function selection(answer: ParallelStacksAnswer, boxId: string, depth: number): Selection | undefined {
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  const box = allBoxes(stopBoxes(answer)).find((b) => b.id === boxId);
  const step = box?.steps.find((s) => s.depth === depth);
  if (!box || !step) return undefined;
  const candidates: Selection['candidates'] = [];
  let unmapped = 0;
  for (const gtid of box.gtids) {
    const thread = threads.get(gtid);
    if (!thread || thread.threadId === undefined || !thread.stepFrames) {
      unmapped++;
      continue;
    }
    candidates.push({ threadId: thread.threadId, name: thread.name, gtid, frame: thread.stepFrames[depth] ?? null });
  }
  candidates.sort((a, b) => Number(b.threadId === answer.threadId) - Number(a.threadId === answer.threadId) || a.gtid - b.gtid);
  return { step: step.text, candidates, unmapped };
}

/** The source file and line of frame {@code frame} of thread {@code gtid}, as jompd's unwinder found them. */
export function frameSource(answer: ParallelStacksAnswer, gtid: number, frame: number): { file: string; line: number } | undefined {
  const source = answer.stacks.threads.find((t) => t.gtid === gtid)?.frames[frame]?.source;
  const match = source ? /^(.*):(\d+)$/.exec(source) : null;
  return match ? { file: match[1], line: Number(match[2]) } : undefined;
}
