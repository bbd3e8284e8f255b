// The OpenMP tree view's model: built from the server's jompd/openmpTree answer (schema
// "jompd-inspect/1", the same JSON as `jompd inspect --json`). No VS Code API here, so it is unit-tested.

export interface ToolData { value: string; ptr: string }

export interface InspectTask {
  address: string;
  lightweightTeam?: string;
  flags?: { explicit: boolean; final: boolean; tied: boolean; started: boolean; executing: boolean;
            complete: boolean; taskSerial: boolean; teamSerial: boolean };
  function?: { address: string; symbol?: string; module?: string };
  frames?: { exitFrame: string; exitFrameFlags: number; enterFrame: string; enterFrameFlags: number };
  toolData?: ToolData;
  icvs: Record<string, string>;
}

export interface InspectThread {
  gtid: number; lwp?: number; pthread: string; threadNum: number; state: string; waitId: string;
  region: string | null; toolData: ToolData; icvs: Record<string, string>; tasks: InspectTask[];
}

export interface InspectRegion {
  id: string; level: number; activeLevel: number; teamSize: number; serialized: boolean;
  enclosing: string | null; toolData: ToolData; icvs: Record<string, string>;
}

export interface InspectReport {
  schema: string;
  target: { kind: string; name: string; runtime: string; ompVersion: number };
  icvs: Record<string, string>;
  displayControlVariables: string[];
  regions: InspectRegion[];
  threads: InspectThread[];
  problems: string[];
}

export type NodeKind = 'process' | 'region' | 'thread' | 'task' | 'icvs' | 'icv' | 'idle' | 'problems' | 'message';

/** One row of the tree. {@code tooltip} lists ICVs, so they show on hover as well as on expansion. */
export interface TreeNode {
  id: string;
  kind: NodeKind;
  label: string;
  description?: string;
  tooltip?: string;
  children: TreeNode[];
}

export const SCHEMA = 'jompd-inspect/1';

/** Thrown for answers this extension cannot read (another schema version, not an object). */
export class SchemaError extends Error {}

/** Checks the answer's shape before anything relies on it. */
export function parseReport(body: unknown): InspectReport {
  if (typeof body !== 'object' || body === null) {
    throw new SchemaError('the OpenMP tree is not a JSON object');
  }
  const report = body as Partial<InspectReport>;
  if (report.schema !== SCHEMA) {
    throw new SchemaError(`unsupported OpenMP tree schema ${JSON.stringify(report.schema)} (this extension reads ${SCHEMA})`);
  }
  if (!Array.isArray(report.threads) || !Array.isArray(report.regions)) {
    throw new SchemaError('the OpenMP tree lacks its threads or regions');
  }
  return report as InspectReport;
}

/** "state" without the OMPT prefix: ompt_state_wait_barrier_explicit -> wait_barrier_explicit. */
export function shortState(state: string): string {
  return state.startsWith('ompt_state_') ? state.slice('ompt_state_'.length) : state;
}

/** ICVs as hover text, one "name = value" per line. */
export function icvTooltip(title: string, icvs: Record<string, string>, extra: string[] = []): string {
  const lines = [title, ...extra, ...Object.entries(icvs).map(([name, value]) => `${name} = ${value}`)];
  return lines.join('\n');
}

function icvNodes(parentId: string, icvs: Record<string, string>): TreeNode {
  const entries = Object.entries(icvs);
  return {
    id: `${parentId}/icvs`, kind: 'icvs', label: 'ICVs', description: `${entries.length}`,
    children: entries.map(([name, value]) => ({ id: `${parentId}/icvs/${name}`, kind: 'icv', label: name, description: value, children: [] })),
  };
}

function taskNode(thread: InspectThread, task: InspectTask, index: number): TreeNode {
  const id = `thread/${thread.gtid}/task/${index}/${task.address}`;
  const words: string[] = [];
  if (task.flags) {
    words.push(task.flags.explicit ? 'explicit' : 'implicit', task.flags.tied ? 'tied' : 'untied');
    if (task.flags.final) words.push('final');
    if (task.flags.taskSerial) words.push('undeferred');
  }
  const fn = task.function?.symbol ?? task.function?.address;
  const extra = [`task ${task.address}`, ...(fn ? [`function ${fn}`] : []),
    ...(task.toolData ? [`tool data value ${task.toolData.value}, ptr ${task.toolData.ptr}`] : [])];
  return {
    id, kind: 'task', label: `${words.length > 0 ? words.join(' ') : 'task'} task`, description: fn,
    tooltip: icvTooltip(`Task ${task.address}`, task.icvs, extra.slice(1)),
    children: [icvNodes(id, task.icvs)],
  };
}

function threadNode(thread: InspectThread, teamSize?: number): TreeNode {
  const id = `thread/${thread.gtid}`;
  const number = teamSize !== undefined ? `${thread.threadNum}/${teamSize}` : `${thread.threadNum}`;
  const extra = [`gtid ${thread.gtid}${thread.lwp !== undefined ? `, LWP ${thread.lwp}` : ''}, pthread ${thread.pthread}`,
    `state ${thread.state}, wait id ${thread.waitId}`, `tool data value ${thread.toolData.value}, ptr ${thread.toolData.ptr}`];
  return {
    id, kind: 'thread',
    label: `omp ${number}${thread.lwp !== undefined ? ` · LWP ${thread.lwp}` : ''}`,
    description: shortState(thread.state),
    tooltip: icvTooltip(`OpenMP thread ${number}`, thread.icvs, extra),
    children: [icvNodes(id, thread.icvs), ...thread.tasks.map((task, i) => taskNode(thread, task, i))],
  };
}

/**
 * The tree: the process (its ICVs), then the outermost regions, each with its nested regions and the
 * threads whose innermost region it is (with their task chains); threads in no team; problems, if any.
 */
export function buildTree(report: InspectReport): TreeNode[] {
  const children = new Map<string | null, InspectRegion[]>();
  const known = new Set(report.regions.map((r) => r.id));
  for (const region of report.regions) {
    // a region whose enclosing region is missing (corrupt memory) is shown at the top rather than lost
    const parent = region.enclosing !== null && known.has(region.enclosing) ? region.enclosing : null;
    children.set(parent, [...(children.get(parent) ?? []), region]);
  }
  const threadsIn = new Map<string, InspectThread[]>();
  const idle: InspectThread[] = [];
  for (const thread of report.threads) {
    if (thread.region !== null && known.has(thread.region)) {
      threadsIn.set(thread.region, [...(threadsIn.get(thread.region) ?? []), thread]);
    } else {
      idle.push(thread);
    }
  }
  const regionNode = (region: InspectRegion, depth: number): TreeNode => {
    const id = `region/${region.id}`;
    const threads = [...(threadsIn.get(region.id) ?? [])].sort((a, b) => a.threadNum - b.threadNum);
    const nested = depth > 64 ? [] : (children.get(region.id) ?? []).map((r) => regionNode(r, depth + 1));
    return {
      id, kind: 'region',
      label: `level ${region.level}${region.serialized ? ' (serialized)' : ''} · team of ${region.teamSize}`,
      description: `${threads.length} thread${threads.length === 1 ? '' : 's'} innermost here`,
      tooltip: icvTooltip(`Parallel region ${region.id}, level ${region.level}, active level ${region.activeLevel}`,
        region.icvs, [`tool data value ${region.toolData.value}, ptr ${region.toolData.ptr}`]),
      children: [icvNodes(id, region.icvs), ...nested, ...threads.map((t) => threadNode(t, region.teamSize))],
    };
  };
  const nodes: TreeNode[] = [{
    id: 'process', kind: 'process', label: `${report.target.kind} ${report.target.name}`,
    description: `${report.target.runtime}, OpenMP ${report.target.ompVersion}, ${report.threads.length} threads`,
    tooltip: icvTooltip('Process ICVs', report.icvs, report.displayControlVariables),
    children: [icvNodes('process', report.icvs)],
  }];
  nodes.push(...(children.get(null) ?? []).map((r) => regionNode(r, 0)));
  if (idle.length > 0) {
    nodes.push({ id: 'idle', kind: 'idle', label: 'Threads in no team', description: `${idle.length}`,
      children: idle.map((t) => threadNode(t)) });
  }
  if (report.problems.length > 0) {
    nodes.push({ id: 'problems', kind: 'problems', label: 'Problems', description: `${report.problems.length}`,
      children: report.problems.map((p, i) => ({ id: `problems/${i}`, kind: 'message', label: p, children: [] })) });
  }
  return nodes;
}

/** A tree of one line, for "no session", "running" or an error. */
export function messageTree(text: string): TreeNode[] {
  return [{ id: 'message', kind: 'message', label: text, children: [] }];
}
