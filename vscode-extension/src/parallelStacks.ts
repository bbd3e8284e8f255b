// The OpenMP Parallel Stacks picture: built from the server's jompd/parallelStacks answer (the command line's
// `stacks` JSON, the diagnosis, DAP thread ids and frame indices), laid out as a tree of boxes and drawn as
// HTML + SVG. No VS Code API here, so it is unit-tested. InspectStacks* are the schema's types
// (test/schemaTypes.test.ts checks them against jompd-inspect.schema.json's `stacks`).

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

/** One step in a box: a frame of user code or a folded run of libomp's frames, at depth {@code depth}. */
export interface BoxStep { text: string; runtime: boolean; depth: number }

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
 * A tidy tree layout, callers above callees: leaves take consecutive columns, a parent is centred over its
 * children, and each level starts below the tallest box of the level above.
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

/** Sorted numbers as ranges: 0, 3-5, 9. */
export function ranges(numbers: number[]): string {
  const sorted = [...new Set(numbers)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length; i++) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j++;
    parts.push(i === j ? `${sorted[i]}` : `${sorted[i]}-${sorted[j]}`);
    i = j;
  }
  return parts.join(', ');
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

/**
 * The picture as HTML: the diagnosis' findings, then the boxes (absolutely placed divs, each step a button
 * carrying its box and depth) over an SVG of the caller-to-callee edges, the stopped thread's path marked.
 * Places and sizes are data attributes, which the webview's script applies: its content security policy
 * allows no inline style attributes.
 */
export function renderHtml(answer: ParallelStacksAnswer): string {
  const threads = new Map(answer.threads.map((t) => [t.gtid, t]));
  const stopped = answer.threads.find((t) => t.threadId === answer.threadId);
  const placed = layout(buildBoxes(answer.stacks.tree, stopped?.gtid));
  const findings = answer.diagnosis.map((f) => `<li><details><summary>${escapeHtml(f.summary)}</summary><ul>${
    f.evidence.map((e) => `<li>${escapeHtml(e)}</li>`).join('')}</ul></details></li>`).join('');
  const edges = placed.boxes.flatMap((box) => box.children.map((child) => {
    const x1 = box.x + box.width / 2;
    const y1 = box.y + box.height;
    const x2 = child.x + child.width / 2;
    const y2 = child.y;
    const mid = (y1 + y2) / 2;
    return `<path class="edge${child.stopped ? ' stopped' : ''}" d="M${x1},${y1} C${x1},${mid} ${x2},${mid} ${x2},${y2 - 4}" marker-end="url(#arrow)"/>`;
  })).join('');
  const boxes = placed.boxes.map((box) => {
    const steps = box.steps.map((step) => `<button class="step${step.runtime ? ' runtime' : ''}" data-box="${box.id}" `
      + `data-depth="${step.depth}" title="${escapeHtml(step.text)}">${escapeHtml(step.text)}</button>`).join('');
    const names = box.gtids.slice(0, 64).map((g) => threads.get(g)?.name ?? `gtid ${g}`).join('\n')
      + (box.gtids.length > 64 ? `\n… ${box.gtids.length - 64} more` : '');
    return `<div class="box${box.stopped ? ' stopped' : ''}" id="${box.id}" data-gtids="${box.gtids.join(',')}" `
      + `data-left="${box.x}" data-top="${box.y}" data-width="${box.width}" data-height="${box.height}">`
      + `<div class="threads" title="${escapeHtml(names)}">${box.stopped ? '<span class="here">▶</span> ' : ''}`
      + `${escapeHtml(threadSet(box.gtids))}</div>`
      + `<div class="omp">${escapeHtml(annotation(box.gtids, threads))}</div>${steps}</div>`;
  }).join('');
  // what the reader should know (no OMP_DEBUG: why states are not tracked, what to set), once above the picture
  const notes = (answer.notices ?? []).map((n) => `<p class="note">note: ${escapeHtml(n)}</p>`).join('');
  return `<section class="diagnosis"><h2>Diagnosis</h2><ul>${findings}</ul></section>${notes}`
    + `<p class="summary">${answer.threads.length} OpenMP threads in ${placed.boxes.length} boxes`
    + `${stopped ? ` · ▶ the stopped thread: ${escapeHtml(stopped.name)}` : ''} · click a frame to select it in the debugger</p>`
    + `<div class="scroll"><div class="graph" data-width="${placed.width}" data-height="${placed.height}">`
    + `<svg width="${placed.width}" height="${placed.height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" `
    + `markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${edges}</svg>`
    + `${boxes}</div></div>`;
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
  const stopped = answer.threads.find((t) => t.threadId === answer.threadId);
  const box = layout(buildBoxes(answer.stacks.tree, stopped?.gtid)).boxes.find((b) => b.id === boxId);
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
