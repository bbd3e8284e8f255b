// The "OpenMP Parallel Stacks" webview: the stop's parallel stacks as a graph (src/parallelStacks.ts draws
// it), refreshed at every stop, and a click on a frame selects that thread and frame in VS Code's debugger.
// It opens as an editor of the active group — the whole editor area when there is one group: a graph of a few
// boxes of frame names is wider than the half a group beside would get. A click on a frame shows that frame's
// source in the same group, over the picture (which stays a tab; the outcome is also said in the status bar). Drawing a stop takes one round trip: the extension sends the page around the
// graph and the texts of the boxes; the webview measures them in its fonts and tells the size of its view; the
// extension sizes and places the boxes (parallelStacks.ts arrange) and sends the graph, which the webview fits
// to the view. Finding a frame, marking a thread, zoom and pan are the webview's own.
//
// How a frame is selected, since VS Code 1.96's API cannot set the focused thread or frame
// (`vscode.debug.activeStackItem` is read-only; microsoft/vscode#281784 asks for a setter, for a parallel
// stacks webview like this one): the server's jompd/focusThread tells the current stop again for that thread
// (a `stopped` event, which is what makes VS Code focus a thread), then the commands
// workbench.action.debug.callStackDown/Up move the focus frame by frame until `activeStackItem` is the
// frame wanted. Which frame an item is comes from the stackTrace answers VS Code received (FrameIndex), and
// so does when a move may be made: only once VS Code has fetched the stack after that stop (a move before it
// fetches the rest a second time, and the later answer's frames replace those the focus is on: the next move
// then lands on the first frame VS Code shows, not one further — the focus ended a frame short). The server
// tells a thread other than the stopped one as paused, so VS Code focuses that thread's first frame it does
// not de-emphasize, once, after the whole stack arrived (dap-server FocusThreadHandler says why).
// callStackDown/Up pass over frames VS Code shows de-emphasized (no source): such a frame cannot be selected;
// then the nearest one is, and the step's source (if jompd's unwinder has one) is opened.
import * as fs from 'fs';
import * as crypto from 'crypto';
import * as vscode from 'vscode';
import { FrameIndex } from './frameIndex';
import { allBoxes, arrange, boxHeaders, frameSource, ParallelStacksAnswer, parseAnswer, renderChrome, renderGraph, selection,
  StacksError, stopBoxes, textsToMeasure, ViewSize } from './parallelStacks';

export const STACKS_REQUEST = 'jompd/parallelStacks';
export const FOCUS_REQUEST = 'jompd/focusThread';

/** Polls {@code probe} until it answers (VS Code's focus changes arrive asynchronously), or gives up. */
async function until<T>(probe: () => T | undefined, timeoutMs: number): Promise<T | undefined> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined || Date.now() > end) return value;
    await new Promise((resolve) => setTimeout(resolve, 40));
  }
}

/** How long VS Code may take over a stop (its stack fetches and the focus) or over one move: seconds on a loaded machine. */
const SETTLE_MS = 10_000;
const MOVE_MS = 6_000;

/**
 * Selects frame {@code level} of thread {@code threadId} in VS Code's debugger; answers the level reached
 * (undefined when VS Code did not focus the thread at all).
 *
 * Deterministic by waiting, never by sleeping: a move is made only once VS Code has fetched the thread's stack
 * (FrameIndex.settled: no stackTrace request unanswered, the frames it fetches at a stop known) and focused a
 * frame of it from that fetch; each move then waits for the frame VS Code's move lands on, which the frames
 * and their hints tell beforehand (ThreadStack.next). A focus change that is not the move's (VS Code's own, late)
 * is not taken for it: the walk goes on from wherever the focus is.
 */
export async function focusFrame(session: vscode.DebugSession, threadId: number, level: number,
    frames: FrameIndex): Promise<number | undefined> {
  const stopsBefore = frames.stops(session.id);
  await session.customRequest(FOCUS_REQUEST, { threadId });
  const stack = () => frames.stack(session.id, threadId);
  /** The focused frame's id and level, when it is a frame of the thread's stack as VS Code holds it now. */
  const focused = (): { id: number; level: number } | undefined => {
    const item = vscode.debug.activeStackItem;
    if (!item || item.session.id !== session.id || !('frameId' in item) || item.threadId !== threadId) return undefined;
    const at = stack().levelOf(item.frameId);
    return at === undefined ? undefined : { id: item.frameId, level: at };
  };
  const settled = () => frames.stops(session.id) > stopsBefore && frames.settled(session.id, threadId) ? focused() : undefined;
  // the stopped event the request causes: VS Code fetches the stack (1 frame, then 19 more) and focuses its top
  let at = await until(settled, SETTLE_MS) ?? focused();
  let tries = 0; // moves made from the focused frame (VS Code's own late focus may undo one)
  for (let moves = 0; at !== undefined && at.level !== level && moves < 512; moves++) {
    const from: { id: number; level: number } = at;
    const down = from.level < level;
    const lands = stack().next(from.level, down);
    if (lands === 'wrap') break; // no frame VS Code focuses that way: the wanted one is past the end, or passed over
    await vscode.commands.executeCommand(down ? 'workbench.action.debug.callStackDown' : 'workbench.action.debug.callStackUp');
    // where the move lands; a move down past the fetched frames fetches more first ('unknown': any new frame)
    const moved = await until(() => {
      if (stack().pending > 0) return undefined;
      const now = focused();
      return now !== undefined && now.id !== from.id && (lands === 'unknown' || now.level === lands) ? now : undefined;
    }, MOVE_MS);
    if (moved === undefined) {
      // not where the move lands: VS Code moved the focus itself meanwhile, or is slower than MOVE_MS
      at = focused() ?? from;
      tries = at.id === from.id ? tries + 1 : 0;
      if (tries >= 3) break;
      continue;
    }
    tries = 0;
    at = moved;
    if (lands === 'unknown' && (down ? moved.level < from.level : moved.level > from.level)) break; // wrapped round: past the end
    if (down ? moved.level > level : moved.level < level) break; // passed over it: a frame VS Code does not focus
  }
  return at?.level;
}

export class ParallelStacksPanel {
  private panel: vscode.WebviewPanel | undefined;
  private session: vscode.DebugSession | undefined;
  private answer: ParallelStacksAnswer | undefined;
  /** What the webview shows now (sent again when it asks: it was reloaded): a message, or a stop's page to measure. */
  private last: { type: 'render'; html: string } | { type: 'measure'; seq: number; html: string; step: string[]; header: string[] }
    = { type: 'render', html: '' };
  private seq = 0;
  private statusBar: vscode.Disposable | undefined;

  constructor(private readonly frames: FrameIndex, private readonly isStopped: (session: vscode.DebugSession) => boolean) {}

  get isOpen(): boolean {
    return this.panel !== undefined;
  }

  async show(session: vscode.DebugSession | undefined): Promise<void> {
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('jompd.parallelStacks', 'OpenMP Parallel Stacks',
        { viewColumn: vscode.ViewColumn.Active, preserveFocus: false },
        { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: true });
      this.panel.webview.html = stacksShell(this.panel.webview);
      this.panel.onDidDispose(() => { this.panel = undefined; });
      this.panel.webview.onDidReceiveMessage((message: { type?: string; box?: string; depth?: number; seq?: number;
          step?: number[]; header?: number[]; view?: ViewSize }) => {
        if (message.type === 'ready') {
          void this.post(this.last);
        } else if (message.type === 'measured' && message.seq === this.seq && message.step && message.header && message.view) {
          void this.place(message.step, message.header, message.view);
        } else if (message.type === 'select' && typeof message.box === 'string' && typeof message.depth === 'number') {
          void this.select(message.box, message.depth);
        }
      });
    } else {
      this.panel.reveal(undefined, true);
    }
    await this.refresh(session);
  }

  /** Asks the server for the stop's stacks (only at a stop: there are none while the program runs). */
  async refresh(session: vscode.DebugSession | undefined): Promise<void> {
    if (!this.panel) return;
    this.session = session;
    this.answer = undefined;
    if (!session || session.type !== 'jompd') {
      return this.message('No jompd debug session');
    }
    if (!this.isStopped(session)) {
      return this.message('The program is running: the parallel stacks come at the next stop');
    }
    await this.message('Unwinding every OpenMP thread…');
    try {
      const parsed = parseAnswer(await session.customRequest(STACKS_REQUEST));
      if ('message' in parsed) {
        return this.message(parsed.message);
      }
      this.answer = parsed;
      const boxes = allBoxes(stopBoxes(parsed));
      this.last = { type: 'measure', seq: ++this.seq, html: renderChrome(parsed, boxes.length),
        ...textsToMeasure(boxes, boxHeaders(parsed)) };
      await this.post(this.last);
    } catch (e) {
      await this.message(e instanceof StacksError || e instanceof Error ? e.message : String(e));
    }
  }

  /** The webview measured the texts it was sent: the boxes sized to them, placed for its view, and drawn. */
  private async place(stepWidths: number[], headerWidths: number[], view: ViewSize): Promise<void> {
    const answer = this.answer;
    const last = this.last;
    if (!answer || last.type !== 'measure') return;
    const widths = (texts: string[], measured: number[]) => new Map(texts.map((text, i) => [text, measured[i] ?? 0]));
    const steps = widths(last.step, stepWidths);
    const headers = widths(last.header, headerWidths);
    const roots = stopBoxes(answer);
    const placed = arrange(roots, { step: (t) => steps.get(t) ?? 0, header: (t) => headers.get(t) ?? 0 }, boxHeaders(answer), view);
    await this.post({ type: 'graph', seq: last.seq, html: renderGraph(answer, placed) });
  }

  /** The program runs on: the picture of the last stop is no longer true. */
  running(): void {
    this.answer = undefined;
    void this.message('The program is running: the parallel stacks come at the next stop');
  }

  private async message(text: string): Promise<void> {
    this.last = { type: 'render', html: `<p class="message">${text.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</p>` };
    await this.post(this.last);
  }

  private async post(message: { type: string; html?: string; text?: string; seq?: number }): Promise<void> {
    await this.panel?.webview.postMessage(message);
  }

  /** Says how a click went: in the view, and in the status bar (a frame's source may be shown over the view). */
  private status(text: string): void {
    void this.post({ type: 'status', text });
    this.statusBar?.dispose();
    this.statusBar = vscode.window.setStatusBarMessage(`Parallel Stacks: ${text}`, 10_000);
  }

  /** A click on step {@code depth} of box {@code boxId}: that thread and frame, selected in the debugger. */
  private async select(boxId: string, depth: number): Promise<void> {
    const session = this.session;
    const answer = this.answer;
    if (!session || !answer) return;
    const chosen = selection(answer, boxId, depth);
    if (!chosen || chosen.candidates.length === 0) {
      this.status('No thread of this box is one the debugger lists');
      return;
    }
    let candidate = chosen.candidates[0];
    if (chosen.candidates.length > 1) {
      const items = chosen.candidates.map((c) => ({ label: c.name, description: `thread ${c.threadId}`, candidate: c }));
      const picked = await vscode.window.showQuickPick(items, {
        title: `${chosen.candidates.length} threads share ${chosen.step}`, placeHolder: 'Which thread to select' });
      if (!picked) return;
      candidate = picked.candidate;
    }
    if (candidate.frame === null) {
      this.status(`${candidate.name}: "${chosen.step}" is no frame`);
      return;
    }
    this.status(`Selecting ${candidate.name}, frame ${candidate.frame}…`);
    let reached: number | undefined;
    try {
      reached = await focusFrame(session, candidate.threadId, candidate.frame, this.frames);
    } catch (e) {
      this.status(`${candidate.name}: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (reached === candidate.frame) {
      this.status(`Selected ${candidate.name}, frame ${candidate.frame}: ${chosen.step}`);
      return;
    }
    // the frame is not one VS Code's call stack focuses: show its source at least
    const source = frameSource(answer, candidate.gtid, candidate.frame);
    if (source && fs.existsSync(source.file)) {
      const line = Math.max(0, source.line - 1);
      await vscode.window.showTextDocument(vscode.Uri.file(source.file), { preview: true, preserveFocus: true,
        selection: new vscode.Range(line, 0, line, 0) });
    }
    this.status(`Selected ${candidate.name}${reached === undefined ? '' : `, frame ${reached}`}: frame ${candidate.frame} (${chosen.step}) `
      + `is not one the debugger's call stack can focus (no source, or past the end of gdb's backtrace)`
      + (source && fs.existsSync(source.file) ? `; its source is open at line ${source.line}` : ''));
  }
}

/**
 * The style rules the job view ({@link shell}) and the parallel stacks ({@link stacksShell}) share: the diagnosis list,
 * the status line, and the graph's edges, boxes and steps. Each shell includes it after its own layout rules; the
 * stacks' find and mark rules come after it (they override its borders, backgrounds and outlines).
 */
const SHARED_STYLE = `.diagnosis > ul { margin: 0; padding-left: 4px; list-style: none; }
.diagnosis details ul { margin: 2px 0 4px; padding-left: 20px; color: var(--vscode-descriptionForeground); }
.diagnosis summary { cursor: pointer; }
#status:empty { display: none; }
.graph svg { position: absolute; left: 0; top: 0; }
.edge { fill: none; stroke: var(--vscode-editorWidget-border, var(--vscode-panel-border)); stroke-width: 1.5; }
.edge.stopped { stroke: var(--vscode-debugIcon-breakpointCurrentStackframeForeground, var(--vscode-focusBorder)); stroke-width: 2.5; }
marker path { fill: var(--vscode-editorWidget-border, var(--vscode-panel-border)); }
.box { position: absolute; box-sizing: border-box; padding: 8px; overflow: hidden; border-radius: 4px;
  background: var(--vscode-editorWidget-background); border: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border)); }
.box.stopped { border: 2px solid var(--vscode-debugIcon-breakpointCurrentStackframeForeground, var(--vscode-focusBorder)); }
.threads { font-weight: 600; height: 18px; line-height: 18px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.here { color: var(--vscode-debugIcon-breakpointCurrentStackframeForeground, var(--vscode-focusBorder)); }
.omp { color: var(--vscode-descriptionForeground); height: 18px; line-height: 18px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.step.runtime { color: var(--vscode-descriptionForeground); font-style: italic; }
.step:hover { background: var(--vscode-list-hoverBackground); }
.step.selected { background: var(--vscode-list-activeSelectionBackground); color: var(--vscode-list-activeSelectionForeground); }
.step:focus-visible { outline: 1px solid var(--vscode-focusBorder); }`;

/** The webview's page: a strict content security policy, theme colours, and a small script for clicks. */
export function shell(webview: vscode.Webview): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size); padding: 0 8px; }
h2 { font-size: 1em; margin: 6px 0 2px; }
.scroll { overflow-x: auto; overflow-y: hidden; }
.summary, .message, #status { color: var(--vscode-descriptionForeground); margin: 6px 0; }
#status { color: var(--vscode-foreground); border-left: 3px solid var(--vscode-focusBorder); padding: 2px 6px;
  position: sticky; top: 0; z-index: 1; background: var(--vscode-editor-background); }
.graph { position: relative; }
.step { display: block; width: 100%; height: 18px; line-height: 18px; padding: 0 2px; text-align: left; border: none; background: none;
  color: var(--vscode-foreground); font-family: var(--vscode-editor-font-family); font-size: 0.95em; cursor: pointer;
  white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
${SHARED_STYLE}
</style></head><body>
<div id="status" role="status"></div>
<div id="root"></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
const status = document.getElementById('status');
function place() {
  for (const el of root.querySelectorAll('[data-width]')) {
    if (el.dataset.left !== undefined) { el.style.left = el.dataset.left + 'px'; el.style.top = el.dataset.top + 'px'; }
    el.style.width = el.dataset.width + 'px';
    el.style.height = el.dataset.height + 'px';
  }
}
window.addEventListener('message', (event) => {
  const message = event.data;
  if (message.type === 'render') { root.innerHTML = message.html; status.textContent = ''; place(); }
  else if (message.type === 'status') { status.textContent = message.text; }
});
root.addEventListener('click', (event) => {
  const step = event.target.closest('button.step');
  if (!step) return;
  for (const other of root.querySelectorAll('button.step.selected')) other.classList.remove('selected');
  step.classList.add('selected');
  vscode.postMessage({ type: 'select', box: step.dataset.box, depth: Number(step.dataset.depth) });
});
vscode.postMessage({ type: 'ready' });
</script></body></html>`;
}


/**
 * The parallel stacks' page: the same content security policy and theme colours as {@link shell}, a bar to find
 * a frame and mark a thread, and a script that measures texts, places the boxes, fits the graph to the view,
 * zooms (Ctrl+wheel, the bar's buttons) and pans (drag, wheel).
 */
export function stacksShell(webview: vscode.Webview): string {
  const nonce = crypto.randomBytes(16).toString('base64');
  return `<!DOCTYPE html><html lang="en"><head><meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src ${webview.cspSource} 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<style nonce="${nonce}">
html, body { height: 100%; margin: 0; }
body { color: var(--vscode-foreground); background: var(--vscode-editor-background); font-family: var(--vscode-font-family);
  font-size: var(--vscode-font-size); padding: 0 8px; box-sizing: border-box; display: flex; flex-direction: column; overflow: hidden; }
#root { flex: 1; display: flex; flex-direction: column; min-height: 0; }
h2 { font-size: 1em; margin: 4px 0 2px; }
.bar { display: flex; flex-wrap: wrap; align-items: center; gap: 6px; padding: 6px 0 2px; }
.bar input, .bar select, .bar button { font: inherit; color: var(--vscode-input-foreground); background: var(--vscode-input-background);
  border: 1px solid var(--vscode-input-border, var(--vscode-panel-border)); border-radius: 2px; padding: 2px 6px; }
.bar input { width: 14em; }
.bar select { max-width: 14em; }
.bar .summary { flex: 1 1 8em; min-width: 0; margin: 0; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.bar button { cursor: pointer; min-width: 2em; }
.bar input:focus, .bar select:focus, .bar button:focus-visible { outline: 1px solid var(--vscode-focusBorder); }
#found { color: var(--vscode-descriptionForeground); }
.zoom { display: flex; align-items: center; gap: 4px; }
#zoom-level { min-width: 3.5em; text-align: center; color: var(--vscode-descriptionForeground); }
.diagnosis { max-height: 30vh; overflow: auto; margin: 2px 0 4px; }
.diagnosis > summary { cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.diagnosis[open] > summary { white-space: normal; }
.summary, .message, #status { color: var(--vscode-descriptionForeground); margin: 4px 0; }
#status { color: var(--vscode-foreground); border-left: 3px solid var(--vscode-focusBorder); padding: 2px 6px; margin-top: 4px; }
#viewport { flex: 1; min-height: 80px; position: relative; overflow: hidden; cursor: grab; margin-bottom: 4px;
  border-top: 1px solid var(--vscode-editorWidget-border, var(--vscode-panel-border)); }
#viewport.panning { cursor: grabbing; }
#viewport:focus { outline: none; }
.graph { position: absolute; left: 0; top: 0; transform-origin: 0 0; }
.gtid { font: inherit; color: var(--vscode-textLink-foreground); background: none; border: none; padding: 0; cursor: pointer; }
.gtid:hover { text-decoration: underline; }
.step { display: block; width: 100%; height: 18px; line-height: 18px; padding: 0 2px; text-align: left; border: none; background: none;
  color: var(--vscode-foreground); font-family: var(--vscode-editor-font-family); font-size: 0.95em; cursor: pointer;
  white-space: nowrap; overflow: hidden; }
.step.wrapped { height: 36px; }
.step.wrapped .at { display: block; padding-left: 16px; }
${SHARED_STYLE}
.step.match { background: var(--vscode-editor-findMatchHighlightBackground); outline: 1px solid var(--vscode-editor-findMatchBorder, var(--vscode-focusBorder)); }
.graph.finding .box:not(.found), .graph.marking .box:not(.marked) { opacity: 0.4; }
.box.found { border-color: var(--vscode-editor-findMatchBorder, var(--vscode-focusBorder)); }
.box.marked { box-shadow: 0 0 0 3px var(--vscode-charts-purple, var(--vscode-focusBorder)); }
.graph.marking .edge:not(.marked) { opacity: 0.3; }
.edge.marked { stroke: var(--vscode-charts-purple, var(--vscode-focusBorder)); stroke-width: 3; }
.probe { position: absolute; visibility: hidden; left: -10000px; top: 0; width: auto; }
</style></head><body>
<div id="status" role="status"></div>
<div id="root"></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
const root = document.getElementById('root');
const status = document.getElementById('status');
/** Zoom and pan of the graph; fit: follow the view's size. */
let view = { scale: 1, x: 0, y: 0, fit: true };
let graph;
let viewport;
function clamp(value, low, high) { return Math.min(high, Math.max(low, value)); }
function apply() {
  if (!graph) return;
  graph.style.transform = 'translate(' + view.x + 'px, ' + view.y + 'px) scale(' + view.scale + ')';
  graph.dataset.scale = String(view.scale);
  const level = document.getElementById('zoom-level');
  if (level) level.textContent = Math.round(view.scale * 100) + '%';
}
/** The whole graph in the view, centred across, never larger than its own size. */
function fit() {
  if (!graph || !viewport) return;
  const w = Number(graph.dataset.width), h = Number(graph.dataset.height);
  const scale = Math.min(1, viewport.clientWidth / w, viewport.clientHeight / h);
  view = { scale, x: Math.max(0, (viewport.clientWidth - w * scale) / 2), y: 0, fit: true };
  apply();
}
/** Zooms by factor around a point of the view (its centre when none). */
function zoom(factor, cx, cy) {
  if (!graph) return;
  if (cx === undefined) { cx = viewport.clientWidth / 2; cy = viewport.clientHeight / 2; }
  const scale = clamp(view.scale * factor, 0.1, 4);
  view = { scale, x: cx - (cx - view.x) * scale / view.scale, y: cy - (cy - view.y) * scale / view.scale, fit: false };
  apply();
}
/** Texts measured in the fonts they are drawn with: in a hidden box, as a step and as the header lines. */
function measure(message) {
  const box = document.createElement('div');
  box.className = 'box probe';
  box.innerHTML = '<button class="step"><span></span></button><div class="threads"><span></span></div><div class="omp"><span></span></div>';
  document.body.appendChild(box);
  const width = (span, text) => { span.textContent = text; return Math.ceil(span.getBoundingClientRect().width) + 1; };
  const stepSpan = box.querySelector('.step span');
  const threadsSpan = box.querySelector('.threads span');
  const ompSpan = box.querySelector('.omp span');
  const step = message.step.map((text) => width(stepSpan, text));
  const header = message.header.map((text) => Math.max(width(threadsSpan, text), width(ompSpan, text)));
  box.remove();
  return { step, header };
}
function place() {
  for (const el of graph.querySelectorAll('[data-left]')) {
    el.style.left = el.dataset.left + 'px';
    el.style.top = el.dataset.top + 'px';
    el.style.width = el.dataset.width + 'px';
    el.style.height = el.dataset.height + 'px';
  }
  graph.style.width = graph.dataset.width + 'px';
  graph.style.height = graph.dataset.height + 'px';
}
/** Marks the steps whose text holds the find box's words, and their boxes; the count beside the box. */
function find() {
  const input = document.getElementById('find');
  const found = document.getElementById('found');
  if (!graph || !input) return;
  const words = input.value.trim().toLowerCase();
  let steps = 0;
  for (const box of graph.querySelectorAll('.box')) {
    let any = false;
    for (const step of box.querySelectorAll('button.step')) {
      const match = words !== '' && step.title.toLowerCase().includes(words);
      step.classList.toggle('match', match);
      if (match) { any = true; steps++; }
    }
    box.classList.toggle('found', any);
  }
  graph.classList.toggle('finding', words !== '');
  const boxes = graph.querySelectorAll('.box.found').length;
  found.textContent = words === '' ? '' : steps === 0 ? 'no frame' : steps + ' frame' + (steps === 1 ? '' : 's') + ' in ' + boxes + ' box' + (boxes === 1 ? '' : 'es');
}
/** Marks the boxes a thread passes through, and the edges between them; '' unmarks. */
function mark(gtid) {
  const select = document.getElementById('thread');
  if (select) select.value = gtid;
  if (!graph) return;
  for (const box of graph.querySelectorAll('.box')) {
    box.classList.toggle('marked', gtid !== '' && box.dataset.gtids.split(',').includes(gtid));
  }
  for (const edge of graph.querySelectorAll('.edge')) {
    edge.classList.toggle('marked', gtid !== '' && document.getElementById(edge.dataset.from).classList.contains('marked')
      && document.getElementById(edge.dataset.to).classList.contains('marked'));
  }
  graph.classList.toggle('marking', gtid !== '');
}
/** Brings the next box with a found step into the view's middle, at the zoom it has. */
let nextFound = 0;
function showNextFound() {
  const boxes = graph ? [...graph.querySelectorAll('.box.found')] : [];
  if (boxes.length === 0) return;
  const box = boxes[nextFound++ % boxes.length];
  const cx = Number(box.dataset.left) + Number(box.dataset.width) / 2, cy = Number(box.dataset.top) + Number(box.dataset.height) / 2;
  view = { scale: view.scale, x: viewport.clientWidth / 2 - cx * view.scale, y: viewport.clientHeight / 2 - cy * view.scale, fit: false };
  apply();
}
function wire() {
  viewport = document.getElementById('viewport');
  if (!viewport) return;
  new ResizeObserver(() => { if (view.fit) fit(); }).observe(viewport);
  viewport.addEventListener('wheel', (event) => {
    event.preventDefault();
    const r = viewport.getBoundingClientRect();
    if (event.ctrlKey) { zoom(Math.exp(-event.deltaY / 300), event.clientX - r.left, event.clientY - r.top); return; }
    view = { scale: view.scale, x: view.x - (event.shiftKey ? event.deltaY : event.deltaX), y: view.y - (event.shiftKey ? 0 : event.deltaY), fit: false };
    apply();
  }, { passive: false });
  let drag;
  viewport.addEventListener('pointerdown', (event) => {
    if (event.button !== 0 || event.target.closest('button')) return;
    drag = { x: event.clientX - view.x, y: event.clientY - view.y, id: event.pointerId };
    viewport.setPointerCapture(event.pointerId);
    viewport.classList.add('panning');
  });
  viewport.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    view = { scale: view.scale, x: event.clientX - drag.x, y: event.clientY - drag.y, fit: false };
    apply();
  });
  const end = () => { drag = undefined; viewport.classList.remove('panning'); };
  viewport.addEventListener('pointerup', end);
  viewport.addEventListener('pointercancel', end);
  document.getElementById('find').addEventListener('input', () => { nextFound = 0; find(); });
  document.getElementById('find').addEventListener('keydown', (event) => {
    if (event.key === 'Enter') showNextFound();
    else if (event.key === 'Escape') { event.target.value = ''; find(); }
  });
  document.getElementById('thread').addEventListener('change', (event) => mark(event.target.value));
  document.getElementById('fit').addEventListener('click', fit);
  document.getElementById('actual').addEventListener('click', () => zoom(1 / view.scale));
  document.getElementById('zoom-in').addEventListener('click', () => zoom(1.25));
  document.getElementById('zoom-out').addEventListener('click', () => zoom(0.8));
}
window.addEventListener('message', (event) => {
  const message = event.data;
  if (message.type === 'render') { root.innerHTML = message.html; status.textContent = ''; graph = undefined; viewport = undefined; }
  else if (message.type === 'measure') {
    // a new stop: what was being found or marked stays found or marked where it still is
    const words = document.getElementById('find')?.value ?? '';
    const marked = document.getElementById('thread')?.value ?? '';
    root.innerHTML = message.html;
    status.textContent = '';
    graph = undefined;
    wire();
    document.getElementById('find').value = words;
    document.getElementById('thread').value = marked;
    // measured once the view is shown (a hidden view has no size yet: it is asked to draw as it is revealed)
    const send = (tries) => {
      if ((viewport.clientWidth === 0 || viewport.clientHeight === 0) && tries > 0) { setTimeout(() => send(tries - 1), 100); return; }
      const measured = measure(message);
      vscode.postMessage({ type: 'measured', seq: message.seq, step: measured.step, header: measured.header,
        view: { width: viewport.clientWidth, height: viewport.clientHeight } });
    };
    send(50);
  } else if (message.type === 'graph' && viewport) {
    viewport.innerHTML = message.html;
    graph = viewport.querySelector('.graph');
    place();
    fit();
    find();
    mark(document.getElementById('thread').value);
  } else if (message.type === 'status') { status.textContent = message.text; }
});
root.addEventListener('click', (event) => {
  const gtid = event.target.closest('button.gtid');
  if (gtid) { mark(document.getElementById('thread').value === gtid.dataset.gtid ? '' : gtid.dataset.gtid); return; }
  const step = event.target.closest('button.step');
  if (!step) return;
  for (const other of root.querySelectorAll('button.step.selected')) other.classList.remove('selected');
  step.classList.add('selected');
  vscode.postMessage({ type: 'select', box: step.dataset.box, depth: Number(step.dataset.depth) });
});
document.addEventListener('keydown', (event) => {
  if (event.key === 'Escape' && event.target.tagName !== 'INPUT') mark('');
});
vscode.postMessage({ type: 'ready' });
</script></body></html>`;
}
