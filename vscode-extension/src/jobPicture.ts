// The picture of a whole MPI+OpenMP job in the parallel stacks view: built from `jompd job ... --json` (the
// jompd-job/1 document: classes of ranks, the stacks merged over ranks x threads, the diagnosis, the missing
// ranks), laid out with the parallel stacks' own tree layout and drawn as HTML + SVG. A box of the tree leads
// to its ranks and threads (jobSelection). No VS Code API here, so it is unit-tested.
import { edgePath } from './boxEdges';
import { Box, escapeHtml, layout } from './parallelStacks';

export interface JobRankId { rank?: number; host: string; pid: number; source: string }

export interface JobThread { thread: string; state: string; region?: string; tasks: string[]; stack: string[]; roles: string[] }

export interface JobClass {
  ranks: string; count: number; who: string; unnumbered: JobRankId[]; representative: JobRankId; hang: string;
  threads: JobThread[]; findings: string[]; mpi?: { call: string; from?: string; thread: string }; notices: string[];
}

export interface JobNode {
  step: string; runtime: boolean; ranks: string; rankCount: number; who: string; threads: number; children: JobNode[];
  /** threads whose innermost step this is (more than none at an inner step: a thread stopped in a caller) */
  stopped: number;
}

/** A step of a box as jompd drew it. */
export interface JobBoxStep { step: string; runtime: boolean }

/**
 * A box of the merged stacks as jompd computes it (jompd-job/1 `boxes`): a chain of steps the same threads pass
 * through, its last step's ranks and threads, whether only outliers reach it; the views draw it, never re-derive it.
 */
export interface JobBoxData {
  steps: JobBoxStep[]; ranks: string; rankCount: number; who: string; threads: number;
  /** threads that end at the box's last step while others go on into its children */
  stoppedHere: number;
  outlier: boolean; runtime: boolean; children: JobBoxData[];
}

export interface JobMissing {
  reason: string; words: string; detail: string; ranks: string; count: number; unnumbered: JobRankId[];
}

export interface JobDocument {
  schema: 'jompd-job/1';
  ranks: { total: number; seen: number; missing: number; duplicates: string };
  diagnosis: string[]; classes: JobClass[]; stacks: JobNode[]; boxes: JobBoxData[]; missing: JobMissing[];
}

export class JobError extends Error {}

/** How a job is named to `jompd job`: a Slurm job (JOBID[.STEP]), the launcher's pid, or a directory of cores. */
export type JobTarget = { kind: 'slurm'; job: string } | { kind: 'mpirun'; pid: number } | { kind: 'cores'; directory: string };

/** The command line's arguments after `jompd` for a job's JSON picture. */
export function jobArguments(target: JobTarget): string[] {
  switch (target.kind) {
    case 'slurm':
      if (!/^\d+(\.\d+)?$/.test(target.job.trim())) throw new JobError(`not a Slurm job id: '${target.job}' (JOBID or JOBID.STEP)`);
      return ['job', '--slurm', target.job.trim(), '--json'];
    case 'mpirun':
      if (!Number.isInteger(target.pid) || target.pid <= 0) throw new JobError(`not a process id: ${target.pid}`);
      return ['job', '--mpirun', String(target.pid), '--json'];
    case 'cores':
      if (target.directory.trim().length === 0) throw new JobError('no core directory given');
      return ['job', '--cores', target.directory, '--json'];
  }
}

/** The command's output, checked for what the picture needs. */
export function parseJob(text: string): JobDocument {
  let doc: Partial<JobDocument>;
  try {
    doc = JSON.parse(text) as Partial<JobDocument>;
  } catch (e) {
    throw new JobError(`jompd job printed no JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!doc || doc.schema !== 'jompd-job/1') {
    throw new JobError(`jompd job printed ${doc && typeof doc === 'object' && 'schema' in doc ? `a ${String(doc.schema)} document`
      : 'no jompd-job/1 document'}: this extension reads jompd-job/1`);
  }
  if (!Array.isArray(doc.classes) || !Array.isArray(doc.stacks) || !Array.isArray(doc.boxes) || !Array.isArray(doc.diagnosis) || !Array.isArray(doc.missing) || !doc.ranks) {
    throw new JobError('jompd job: a jompd-job/1 document without classes, stacks, boxes, diagnosis and missing ranks');
  }
  return doc as JobDocument;
}

/** A box of the job's tree, placed by the parallel stacks' layout: jompd's box and the path of steps to its last one. */
export interface JobBox extends Box { data: JobBoxData; path: string[] }

/** jompd's boxes as the layout takes them: ids in drawing order, each step with its depth from the root. */
export function jobBoxes(doc: JobDocument): JobBox[] {
  let next = 0;
  const box = (data: JobBoxData, depth: number, above: string[]): JobBox => {
    const steps: Box['steps'] = data.steps.map((s, i) => ({ text: s.step, runtime: s.runtime, depth: depth + i }));
    const path = [...above, ...data.steps.map((s) => s.step)];
    const id = `j${next++}`;
    const children = data.children.map((child) => box(child, depth + steps.length, path));
    return { id, steps, gtids: [], children, stopped: false, x: 0, y: 0, width: 340,
      height: (2 + steps.length) * 18 + 16, data, path };
  };
  return doc.boxes.map((root) => box(root, 0, []));
}

/** The job as HTML for the parallel stacks webview (the same classes and data attributes its script places). */
export function renderJobHtml(doc: JobDocument, title: string): string {
  const placed = layout(jobBoxes(doc));
  const code = (text: string): string => escapeHtml(text).replace(/`([^`]+)`/g, '<code>$1</code>');
  const diagnosis = doc.diagnosis.map((d) => `<li>${code(d)}</li>`).join('');
  const edges = placed.boxes.flatMap((box) => box.children.map((child) =>
    `<path class="edge" d="${edgePath(box, child)}" marker-end="url(#arrow)"/>`)).join('');
  const boxes = (placed.boxes as JobBox[]).map((box) => {
    const steps = box.steps.map((step) => `<button class="step${step.runtime ? ' runtime' : ''}" data-box="${box.id}" `
      + `data-depth="${step.depth}" title="${escapeHtml(step.text)}">${escapeHtml(step.text)}</button>`).join('');
    const data = box.data;
    return `<div class="box${data.outlier ? ' stopped' : ''}" id="${box.id}" data-left="${box.x}" data-top="${box.y}" `
      + `data-width="${box.width}" data-height="${box.height}"><div class="threads" title="${escapeHtml(data.who)}">`
      + `${escapeHtml(ellipsis(data.who, 44))}</div><div class="omp">${data.threads} thread${data.threads === 1 ? '' : 's'}`
      + ` over ${data.rankCount} rank${data.rankCount === 1 ? '' : 's'}`
      + `${data.stoppedHere > 0 ? ` (${data.stoppedHere} stopped here)` : ''}</div>${steps}</div>`;
  }).join('');
  const missing = doc.missing.length === 0 ? '' : `<section class="diagnosis"><h2>Missing ranks</h2><ul>${doc.missing.map((m) =>
    `<li>${escapeHtml(m.ranks.length > 0 ? `ranks ${m.ranks}` : m.unnumbered.map((u) => `pid ${u.pid} on ${u.host}`).join(', '))}: `
    + `${escapeHtml(m.words)}: ${escapeHtml(m.detail)}</li>`).join('')}</ul></section>`;
  const classes = `<section class="classes"><h2>Classes of ranks</h2><ul>${doc.classes.map((c) =>
    `<li data-ranks="${escapeHtml(c.ranks)}">${escapeHtml(c.who)} (${c.count} rank${c.count === 1 ? '' : 's'}, shown: `
    + `${escapeHtml(shownRank(c.representative))}): ${escapeHtml(threadStates(c.threads))}</li>`).join('')}</ul></section>`;
  return `<section class="diagnosis"><h2>${escapeHtml(title)}</h2><ul>${diagnosis}</ul></section>${missing}${classes}`
    + `<p class="summary">${doc.ranks.total} ranks: ${doc.ranks.seen} seen in ${doc.classes.length} class${doc.classes.length === 1 ? '' : 'es'}`
    + `${doc.ranks.missing > 0 ? `, ${doc.ranks.missing} missing` : ''} · outliers marked · click a frame for its ranks and threads</p>`
    + `<div class="scroll"><div class="graph" data-width="${placed.width}" data-height="${placed.height}">`
    + `<svg width="${placed.width}" height="${placed.height}"><defs><marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" `
    + `markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker></defs>${edges}</svg>`
    + `${boxes}</div></div>`;
}

/** A class's threads by state, most first: "4 threads: 2 wait_barrier_explicit, 1 wait_lock, 1 work_serial". */
function threadStates(threads: JobThread[]): string {
  const counts = new Map<string, number>();
  for (const t of threads) counts.set(t.state, (counts.get(t.state) ?? 0) + 1);
  const states = [...counts.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return `${threads.length} thread${threads.length === 1 ? '' : 's'}: ${states.map(([state, n]) => `${n} ${state}`).join(', ')}`;
}

/** The rank a class shows: "rank 3 on n2 (pid 4711)". */
function shownRank(id: JobRankId): string {
  return `${id.rank !== undefined ? `rank ${id.rank}` : id.source} on ${id.host} (pid ${id.pid})`;
}

function ellipsis(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** One answer to a click on a step: ranks of a class, one of their threads, its state and part in the diagnosis. */
export interface JobMember { ranks: string; thread: string; state: string; roles: string[]; representative: JobRankId }

/**
 * The ranks and threads whose stacks pass through step {@code depth} of box {@code boxId}: per class, each of
 * its threads whose stack begins with the path to that step.
 */
export function jobSelection(doc: JobDocument, boxId: string, depth: number): { step: string; members: JobMember[] } | undefined {
  const box = (layout(jobBoxes(doc)).boxes as JobBox[]).find((b) => b.id === boxId);
  const index = box?.steps.findIndex((s) => s.depth === depth) ?? -1;
  if (!box || index < 0) return undefined;
  const path = box.path.slice(0, box.path.length - box.steps.length + index + 1);
  const members: JobMember[] = [];
  for (const cls of doc.classes) {
    for (const thread of cls.threads) {
      const stack = thread.stack.length > 0 ? thread.stack : [`(no stack: ${thread.thread}, ${thread.state})`];
      if (path.every((step, i) => stack[i] === step)) {
        members.push({ ranks: cls.who, thread: thread.thread, state: thread.state, roles: thread.roles, representative: cls.representative });
      }
    }
  }
  return { step: path[path.length - 1], members };
}

/**
 * The jompd command line, in order: the jompd.cliPath setting, $JOMPD_CLI, then `jompd` on PATH (the
 * distribution's bin/jompd).
 */
export function locateCli(input: { setting: string; env: Record<string, string | undefined> }): string {
  const explicit = [input.setting.trim(), (input.env.JOMPD_CLI ?? '').trim()].find((p) => p.length > 0);
  if (explicit) {
    return explicit.startsWith('~/') && input.env.HOME ? `${input.env.HOME}/${explicit.slice(2)}` : explicit;
  }
  return 'jompd';
}
