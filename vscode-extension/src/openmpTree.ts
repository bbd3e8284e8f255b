// The OpenMP tree view's model: built from the server's jompd/openmpTree answer (schema
// "jompd-inspect/1", the same JSON as `jompd inspect --json`). No VS Code API here, so it is unit-tested.
// The Inspect* types are the schema's: test/schemaTypes.test.ts checks them against its JSON Schema file.

export interface ToolData { value: string; ptr: string }

// Fields marked "report module" come from servers built with the report module (the schema's newer fields);
// older servers leave them out, so they are optional here and the tree falls back to what it works out.

export interface InspectFunction {
  address: string; symbol?: string; module?: string; source?: string;
  displayName?: string; // report module
  // report module: when the user's function was found behind the runtime's entry point
  entryPoint?: string; entrySymbol?: string; resolvedBy?: string; note?: string;
}

export interface InspectTask {
  id?: string; // report module
  address: string;
  kind?: 'initial' | 'implicit' | 'explicit' | 'unknown'; // report module
  status?: 'executing' | 'suspended' | 'not_started' | 'complete' | 'unknown'; // report module
  region?: string; // report module
  lightweightTeam?: string;
  flags?: { explicit: boolean; final: boolean; tied: boolean; started: boolean; executing: boolean;
            complete: boolean; taskSerial: boolean; teamSerial: boolean };
  function?: InspectFunction;
  frames?: { exitFrame: string; exitFrameFlags: number; enterFrame: string; enterFrameFlags: number };
  toolData?: ToolData;
  icvs: Record<string, string>;
}

export interface InspectThread {
  name?: string; // report module: the name every door gives the thread
  gtid: number; lwp?: number; pthread: string; threadNum: number;
  teamPath?: number[]; // report module
  state: string;
  waitId?: string; // none where the state is "not tracked" (older servers sent 0x0 there: no value either)
  region: string | null; toolData: ToolData; icvs: Record<string, string>; tasks: InspectTask[];
  // report module, with the recorder: every event its ring keeps (oldest first), and how many it wrote and lost
  events?: { sequence: string; timeNanos: string; event: string; codeptr: string }[];
  eventsWritten?: string; eventsLost?: string;
  recentEvents?: { timeNanos: string; event: string; codeptr: string }[]; // the last 8 of events
  whyHere?: string[]; // report module, with the recorder: why the thread is where it is, in words
}

/** A task created and not started: ready in a thread's deque, or waiting for its dependences (report module). */
export interface InspectNotStarted {
  task: InspectTask;
  creator?: string; // the id of the task that created it, when that task is in the picture
  creatorAddress: string;
  queue?: { gtid: number; position: number }; // ready: in this thread's deque, from its head
  waitsFor?: { task?: string; address: string; unmet: number }; // its dependences are unmet
}

export interface InspectRegion {
  id: string; level: number; activeLevel: number; teamSize: number; serialized: boolean;
  ended: boolean; // the encountering thread has gone on: libomp keeps the team for the next region
  teams?: { teamNumber: number; leagueSize: number }; // a teams construct's team: its implicit parallel region
  enclosing: string | null;
  teamPath?: number[]; // report module
  function?: InspectFunction; // report module
  toolData: ToolData; icvs: Record<string, string>;
}

/** A device the runtime initialised, as the jompd-recorder saw it (device_initialize, device_load, target events). */
export interface InspectDevice {
  device: number; type: string;
  initializeTimeNanos?: string; finalizeTimeNanos?: string;
  loads?: number; // code images loaded onto the device
  tracing?: 'unknown' | 'unavailable' | 'started' | 'failed' | 'stopped';
  entryPoints?: string[]; // the device tracing entry points the device's lookup returned
  targetRegions?: number; // target regions whose begin events the host threads' rings still hold
  lastTarget?: { kind: string; codeptr: string; timeNanos: string; lwp?: number };
  summary?: string; // the device in one sentence, as the text report shows it
}

/** What the jompd-recorder (an OMPT tool in the program) kept; present only when the program runs with it. */
export interface InspectRecorder {
  module: string;
  monitoring: 'unknown' | 'on' | 'paused' | 'ended';
  ringCapacity: number;
  newestEventNanos?: string;
  registrations: Record<string, string>;
  lockHolders: { waitId: string; kind: string; holderLwp: number | null; waiterLwps: number[] }[];
  deadlocks: number[][];
  // the most recent marks and snapshots the program sent with omp_control_tool(64 | 65, modifier, message)
  marks?: { sequence: number; timeNanos: string; command: 'mark' | 'snapshot'; modifier: string; text: string; lwp?: number }[];
  devices: InspectDevice[];
}

export interface InspectReport {
  schema: string;
  target: { kind: string; name: string; runtime: string; ompVersion: number;
            openmp?: string; // report module: the version in words
            runtimeRead?: string }; // report module: symbols, debug file, debuginfod or profile
  icvs: Record<string, string>;
  displayControlVariables: string[];
  environment?: Record<string, string>; // report module: the program's own OMP_*/KMP_* variables (what it runs with)
  notices: string[];
  regions: InspectRegion[];
  threads: InspectThread[];
  problems: string[];
  // report module: the tasks created and not started, each deque's own count, and how many were not listed
  tasksNotStarted?: { tasks: InspectNotStarted[]; deques: { gtid: number; count: number }[]; notListed: number };
  recorder?: InspectRecorder; // report module, with the jompd-recorder
  stacks?: Record<string, unknown>; // report module, with --stacks (parallel stacks)
}

export type NodeKind = 'process' | 'region' | 'thread' | 'stoppedThread' | 'task' | 'icvs' | 'icv' | 'idle' | 'problems'
  | 'message' | 'whyHere' | 'sentence' | 'devices' | 'device' | 'notStarted' | 'taskGroup';

/**
 * Each row kind's codicon. Only names VS Code 1.96 knows (test/codicons-1.96.txt, checked by a unit test):
 * an unknown name draws no icon at all (`debug-thread` is none).
 */
export const ICONS: Record<NodeKind, string> = {
  process: 'server-process', region: 'type-hierarchy', thread: 'pulse', stoppedThread: 'debug-stackframe',
  task: 'tasklist', icvs: 'symbol-variable', icv: 'symbol-constant', idle: 'debug-pause', problems: 'warning',
  message: 'info', whyHere: 'question', sentence: 'comment', devices: 'circuit-board', device: 'chip',
  notStarted: 'watch', taskGroup: 'tasklist',
};

/** Rows shown open: the picture's top, the thread that stopped, a thread's "why here" and the devices. */
export function startsExpanded(kind: NodeKind): boolean {
  return kind === 'process' || kind === 'region' || kind === 'stoppedThread' || kind === 'whyHere' || kind === 'devices';
}

/** Longest label a sentence row gets; the whole sentence is its tooltip. */
export const SENTENCE_LABEL_LENGTH = 100;

/** {@code text} cut to at most {@code max} characters, at a space where one is near the end, marked with "…". */
export function truncated(text: string, max: number = SENTENCE_LABEL_LENGTH): string {
  if (text.length <= max) return text;
  const space = text.lastIndexOf(' ', max - 1);
  return `${text.slice(0, space > max / 2 ? space : max - 1).trimEnd()}…`;
}

/** A row of one sentence of the recorder's: the label cut when long, the whole sentence on hover. */
function sentenceNode(id: string, sentence: string): TreeNode {
  return { id, kind: 'sentence', label: truncated(sentence), tooltip: sentence, children: [] };
}

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

/**
 * The server's answer when the program is not stopped (before the first stop, running, ended): a success
 * with {@code stop: null}, not a picture. Undefined for anything else.
 */
export function noStopMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('stop' in body) || (body as { stop: unknown }).stop !== null
      || 'schema' in body) {
    return undefined;
  }
  const { state, reason } = body as { state?: string; reason?: string };
  const wording: Record<string, string> = { 'not-started': 'The OpenMP picture comes at the first stop',
    running: 'The program is running: the OpenMP picture comes at the next stop', stepping: 'Stepping…',
    pausing: 'Pausing…', exited: 'The program has exited', terminated: 'The debug session ended' };
  return (state !== undefined ? wording[state] : undefined) ?? reason ?? 'The program is not stopped';
}

/** A thread's state where libomp does not track states (no OMP_DEBUG=enabled): report's OpenMpPicture.NOT_TRACKED. */
export const NOT_TRACKED = 'not tracked';

/** "state" without the OMPT prefix: ompt_state_wait_barrier_explicit -> wait_barrier_explicit. */
export function shortState(state: string): string {
  return state.startsWith('ompt_state_') ? state.slice('ompt_state_'.length) : state;
}

/** A value as the tree shows it: an empty string as `""` (tool-libraries-var is often empty), so it is seen. */
export function shownValue(value: string): string {
  return value === '' ? '""' : value;
}

/** ICVs as hover text, one "name = value" per line. */
export function icvTooltip(title: string, icvs: Record<string, string>, extra: string[] = []): string {
  const lines = [title, ...extra, ...Object.entries(icvs).map(([name, value]) => `${name} = ${shownValue(value)}`)];
  return lines.join('\n');
}

/**
 * The process row's tooltip: its ICVs, the program's own OMP_* and KMP_* variables (what it runs with) and libomp's
 * start-up record, each section called what it is (the record holds libomp's defaults from before it read the
 * environment: shown bare, OMP_NUM_THREADS=undefined read as the program's setting).
 */
export function processTooltip(report: InspectReport): string {
  const environment = Object.entries(report.environment ?? {}).map(([name, value]) => `${name}=${value}`);
  return [icvTooltip('Process ICVs', report.icvs),
    ...(report.environment !== undefined ? ['', 'OpenMP environment (what the program runs with):',
      ...(environment.length > 0 ? environment : ['none set'])] : []),
    ...(report.displayControlVariables.length > 0 ? ['', "libomp's defaults (recorded before it read the environment):",
      ...report.displayControlVariables] : [])].join('\n');
}

function icvNodes(parentId: string, icvs: Record<string, string>): TreeNode {
  const entries = Object.entries(icvs);
  return {
    id: `${parentId}/icvs`, kind: 'icvs', label: 'ICVs', description: `${entries.length}`,
    children: entries.map(([name, value]) => ({ id: `${parentId}/icvs/${name}`, kind: 'icv', label: name, description: shownValue(value), children: [] })),
  };
}

/**
 * What each task of a thread's chain (innermost first) is: the outermost implicit task is the initial task
 * (level 0), each implicit task above it starts one more level, and an explicit task runs at the level of
 * the implicit task below it (the region whose team runs it).
 */
export function taskKinds(tasks: InspectTask[]): { kind: 'initial' | 'implicit' | 'explicit' | 'task'; level?: number }[] {
  const kinds: { kind: 'initial' | 'implicit' | 'explicit' | 'task'; level?: number }[] = new Array(tasks.length);
  let level: number | undefined = -1;
  for (let i = tasks.length - 1; i >= 0; i--) {
    // the report module's kind when the server sends it, else the task's flags
    const kind = tasks[i].kind ?? (tasks[i].flags ? (tasks[i].flags?.explicit ? 'explicit' : 'implicit') : 'unknown');
    if (kind === 'unknown') {
      level = undefined; // an unreadable task: the levels above it are unknown
      kinds[i] = { kind: 'task' };
    } else if (kind === 'explicit') {
      kinds[i] = { kind: 'explicit', level: level !== undefined && level >= 0 ? level : undefined };
    } else {
      level = level === undefined ? undefined : level + 1;
      kinds[i] = { kind: level === 0 ? 'initial' : 'implicit', level };
    }
  }
  return kinds;
}

function taskNode(thread: InspectThread, task: InspectTask, index: number,
    kind: { kind: 'initial' | 'implicit' | 'explicit' | 'task'; level?: number }): TreeNode {
  const id = `thread/${thread.gtid}/task/${index}/${task.address}`;
  const words: string[] = [];
  if (kind.level !== undefined) words.push(`level ${kind.level}`);
  words.push(kind.kind === 'task' ? 'task' : `${kind.kind} task`);
  if (task.flags?.explicit) {
    if (!task.flags.tied) words.push('untied');
    if (task.flags.final) words.push('final');
    if (task.flags.taskSerial) words.push('undeferred');
  }
  if (task.status === 'executing' || task.status === 'suspended') words.push(`(${task.status})`);
  else if (task.status === undefined && task.flags?.executing) words.push('(executing)');
  // the initial task has no function of its own (libomp records 0): the program's main code runs in it
  const address = task.function?.address;
  const fn = task.function?.displayName ?? task.function?.symbol
    ?? (address !== undefined && !/^0x0*$/.test(address) ? address : undefined);
  const extra = [...(fn ? [`function ${fn}`] : kind.kind === 'initial' ? ['the program\'s initial code (main)'] : []),
    ...(task.toolData ? [`tool data value ${task.toolData.value}, ptr ${task.toolData.ptr}`] : [])];
  return {
    id, kind: 'task', label: words.join(' '), description: fn ?? (kind.kind === 'initial' ? 'main program' : undefined),
    tooltip: icvTooltip(`Task ${task.address}`, task.icvs, extra),
    children: [icvNodes(id, task.icvs)],
  };
}

function threadNode(thread: InspectThread, stoppedLwp: number | undefined, teamSize?: number): TreeNode {
  const id = `thread/${thread.gtid}`;
  const stopped = stoppedLwp !== undefined && thread.lwp === stoppedLwp;
  const number = teamSize !== undefined ? `${thread.threadNum}/${teamSize}` : `${thread.threadNum}`;
  const kinds = taskKinds(thread.tasks);
  const extra = [`gtid ${thread.gtid}${thread.lwp !== undefined ? `, LWP ${thread.lwp}` : ''}, pthread ${thread.pthread}`,
    // without OMP_DEBUG libomp keeps no state and no wait id (older servers sent the 0x0 read: no value), so none is shown
    `state ${thread.state}${thread.waitId !== undefined && thread.state !== NOT_TRACKED ? `, wait id ${thread.waitId}` : ''}`,
    `tool data value ${thread.toolData.value}, ptr ${thread.toolData.ptr}`];
  const label = thread.name ?? `omp ${number}${thread.lwp !== undefined ? ` · LWP ${thread.lwp}` : ''}`;
  // the state on the row, once: the server's name ends with it when the state is known ("· wait_lock"), not when it
  // is "not tracked" or an unknown code; then the description says it, in the server's words
  const state = shortState(thread.state);
  const stateInLabel = thread.name !== undefined && thread.name.endsWith(` · ${state}`);
  const description = [...(stopped ? ['stopped here'] : []),
    ...(thread.name !== undefined && thread.lwp !== undefined ? [`LWP ${thread.lwp}`] : []),
    ...(stateInLabel ? [] : [state])].join(' · ');
  return {
    id, kind: stopped ? 'stoppedThread' : 'thread', label, description,
    tooltip: icvTooltip(`OpenMP thread ${number}${stopped ? ' (the thread that stopped)' : ''}`, thread.icvs, extra),
    children: [...whyHereNodes(id, thread.whyHere ?? []), icvNodes(id, thread.icvs),
      ...thread.tasks.map((task, i) => taskNode(thread, task, i, kinds[i]))],
  };
}

/** The recorder's "why is this thread here", one row per sentence; none without the recorder. */
function whyHereNodes(threadId: string, sentences: string[]): TreeNode[] {
  if (sentences.length === 0) return [];
  const id = `${threadId}/whyHere`;
  return [{ id, kind: 'whyHere', label: 'why here', description: 'jompd-recorder', tooltip: sentences.join('\n'),
    children: sentences.map((sentence, i) => sentenceNode(`${id}/${i}`, sentence)) }];
}

const TRACING: Record<NonNullable<InspectDevice['tracing']>, string> = {
  unknown: 'tracing state unknown', unavailable: 'no device tracing', started: 'tracing on', failed: 'tracing failed',
  stopped: 'tracing stopped',
};

/** A device the recorder saw initialised: its number and type, whether it was finalised, its tracing; the summary below. */
function deviceNode(device: InspectDevice, index: number): TreeNode {
  const id = `devices/${index}/${device.device}`;
  const label = `device ${device.device} (${device.type === '' ? 'type not given' : device.type})`;
  const state = [...(device.finalizeTimeNanos !== undefined ? ['finalised'] : []),
    ...(device.tracing !== undefined ? [TRACING[device.tracing] ?? `tracing ${device.tracing}`] : [])];
  const entryPoints = device.entryPoints !== undefined && device.entryPoints.length > 0
    ? [`tracing entry points: ${device.entryPoints.join(', ')}`] : [];
  return {
    id, kind: 'device', label, description: state.length > 0 ? state.join(' · ') : undefined,
    tooltip: [device.summary ?? label, ...entryPoints].join('\n'),
    children: device.summary !== undefined ? [sentenceNode(`${id}/summary`, device.summary)] : [],
  };
}

/**
 * The tree: the process (its ICVs), then the outermost regions, each with its nested regions and the
 * threads whose innermost region it is (with their task chains and, with the jompd-recorder, why each is
 * where it is); threads in no team; with the recorder, the devices it saw initialised; problems, if any.
 * The thread whose LWP is {@code stoppedLwp} (the one that hit the breakpoint or stepped) is marked.
 */
export function buildTree(report: InspectReport, stoppedLwp?: number): TreeNode[] {
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
      label: `level ${region.level}${region.serialized ? ' (serialized)' : ''} · team of ${region.teamSize}${region.ended ? ' · ended' : ''}`
        + (region.teams ? ` · teams: team ${region.teams.teamNumber} of ${region.teams.leagueSize}` : ''),
      description: `${threads.length} thread${threads.length === 1 ? '' : 's'} innermost here`,
      tooltip: icvTooltip(`Parallel region ${region.id}, level ${region.level}, active level ${region.activeLevel}`,
        region.icvs, [`tool data value ${region.toolData.value}, ptr ${region.toolData.ptr}`]),
      children: [icvNodes(id, region.icvs), ...nested, ...threads.map((t) => threadNode(t, stoppedLwp, region.teamSize))],
    };
  };
  const nodes: TreeNode[] = [{
    id: 'process', kind: 'process', label: `${report.target.kind} ${report.target.name}`,
    description: `${report.target.runtime}, ${report.target.openmp ?? `OpenMP ${report.target.ompVersion}`}, ${report.threads.length} threads`,
    tooltip: processTooltip(report),
    children: [icvNodes('process', report.icvs)],
  }];
  // what the reader should know (no OMP_DEBUG: why states are not tracked, what to set), once, under the process
  (report.notices ?? []).forEach((notice, i) => nodes.push({ ...sentenceNode(`notices/${i}`, `note: ${notice}`), kind: 'message' }));
  nodes.push(...(children.get(null) ?? []).map((r) => regionNode(r, 0)));
  if (idle.length > 0) {
    nodes.push({ id: 'idle', kind: 'idle', label: 'Threads in no team', description: `${idle.length}`,
      children: idle.map((t) => threadNode(t, stoppedLwp)) });
  }
  const notStarted = notStartedNode(report);
  if (notStarted !== undefined) nodes.push(notStarted);
  const devices = report.recorder?.devices ?? [];
  if (devices.length > 0) {
    nodes.push({ id: 'devices', kind: 'devices', label: 'Devices', description: `${devices.length} · jompd-recorder`,
      tooltip: 'The devices the OpenMP runtime initialised, as the jompd-recorder saw them',
      children: devices.map(deviceNode) });
  }
  if (report.problems.length > 0) {
    nodes.push({ id: 'problems', kind: 'problems', label: 'Problems', description: `${report.problems.length}`,
      children: report.problems.map((p, i) => ({ id: `problems/${i}`, kind: 'message', label: p, children: [] })) });
  }
  return nodes;
}

/**
 * The tasks created and not started, as the text report lists them: per deque and per task they wait for, each
 * construct and creator on one row with its count (thousands of tasks stay a few rows).
 */
export function notStartedNode(report: InspectReport): TreeNode | undefined {
  const listed = report.tasksNotStarted?.tasks ?? [];
  const notListed = report.tasksNotStarted?.notListed ?? 0;
  if (listed.length === 0 && notListed === 0) return undefined;
  const threadName = (gtid: number) => {
    const thread = report.threads.find((t) => t.gtid === gtid);
    return thread !== undefined ? `thread ${thread.threadNum} (gtid ${gtid})` : `gtid ${gtid}`;
  };
  const places = new Map<string, InspectNotStarted[]>();
  for (const task of listed) {
    const place = task.queue !== undefined ? `ready in the deque of ${threadName(task.queue.gtid)}`
      : `waiting for their dependences on ${task.waitsFor?.task ?? `the task at ${task.waitsFor?.address}`}`;
    places.set(place, [...(places.get(place) ?? []), task]);
  }
  const children: TreeNode[] = [...places.entries()].map(([place, tasks], p) => {
    const groups = new Map<string, InspectNotStarted[]>();
    for (const task of tasks) {
      const key = `${task.task.function?.displayName ?? task.task.function?.symbol ?? 'code unknown'}\u0000${task.creator ?? task.creatorAddress}`;
      groups.set(key, [...(groups.get(key) ?? []), task]);
    }
    const held = tasks[0].queue !== undefined
      ? report.tasksNotStarted?.deques.find((d) => d.gtid === tasks[0].queue?.gtid)?.count : undefined;
    return {
      id: `notStarted/${p}`, kind: 'taskGroup', label: place,
      description: held !== undefined && held !== tasks.length ? `${tasks.length} of ${held}` : `${tasks.length}`,
      children: [...groups.entries()].map(([key, group], g) => {
        const [code, creator] = key.split('\u0000');
        const ids = group.map((t) => t.task.id).filter((id) => id !== undefined);
        return {
          id: `notStarted/${p}/${g}`, kind: 'task', label: `${group.length}× ${code}`, description: `created by ${creator}`,
          tooltip: `${ids.length <= 8 ? ids.join(', ') : `${ids.slice(0, 8).join(', ')} and ${ids.length - 8} more`}`
            + (group[0].waitsFor !== undefined ? `\n${group[0].waitsFor.unmet} dependences unmet` : ''),
          children: [],
        };
      }),
    };
  });
  return {
    id: 'notStarted', kind: 'notStarted', label: 'Tasks not started',
    description: notListed > 0 ? `${listed.length} listed, ${notListed} more` : `${listed.length}`,
    tooltip: 'Explicit tasks created and not started: ready in a thread\'s deque, or waiting for their dependences',
    children,
  };
}

/** A tree of one line, for "no session", "running" or an error. */
export function messageTree(text: string): TreeNode[] {
  return [{ id: 'message', kind: 'message', label: text, children: [] }];
}

/**
 * The trees VS Code is given, one picture after another. A picture equal to the one shown is not shown again:
 * a refresh would only make VS Code fetch every row again while the user looks at the same stop.
 */
export class TreePictures {
  private shownKey: string | undefined;

  /** The tree to show, or undefined when it is the picture already shown. */
  next(roots: TreeNode[]): TreeNode[] | undefined {
    const key = JSON.stringify(roots);
    if (key === this.shownKey) return undefined;
    this.shownKey = key;
    return roots;
  }
}
