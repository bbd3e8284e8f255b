// The VS Code side of jompd: the "jompd" debugger type (the server is jompd's DAP server) and the
// "OpenMP" tree view, fed by the server's jompd/openmpTree request at every stop (never before the first
// stop or while the program runs: there is no picture then) and revealed at a session's first stop.
import * as fs from 'fs';
import * as vscode from 'vscode';
import { checkConfiguration } from './debugConfiguration';
import { buildTree, ICONS, messageTree, noStopMessage, parseReport, startsExpanded, TreeNode, TreePictures } from './openmpTree';
import { inspectJob, JobPanel } from './jobPanel';
import { FrameIndex, StackFrameBody, StackTraceArguments, StoppedBody } from './frameIndex';
import { ParallelStacksPanel } from './parallelStacksPanel';
import { listProcesses, pickItem, ProcessEntry, processesOf } from './processes';
import { locateServer } from './serverLocator';

const TYPE = 'jompd';
const TREE_REQUEST = 'jompd/openmpTree';
const CHANGED_EVENT = 'jompd/openmpChanged';

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

class ServerFactory implements vscode.DebugAdapterDescriptorFactory {
  constructor(private readonly context: vscode.ExtensionContext) {}

  createDebugAdapterDescriptor(): vscode.ProviderResult<vscode.DebugAdapterDescriptor> {
    const settings = vscode.workspace.getConfiguration('jompd');
    const port = settings.get<number>('serverPort', 0);
    if (port > 0) {
      return new vscode.DebugAdapterServer(port, '127.0.0.1');
    }
    const server = locateServer({ setting: settings.get<string>('serverPath', ''), env: process.env,
      extensionPath: this.context.extensionPath, isExecutable, exists: (file) => fs.existsSync(file) });
    return new vscode.DebugAdapterExecutable(server.command, server.args);
  }
}

/** The user's processes (uid as this extension host's). */
function ownProcesses(): ProcessEntry[] {
  return listProcesses(process.getuid ? process.getuid() : -1);
}

/**
 * Asks the user for a process among {@code entries} (OpenMP ones first and marked); its pid as a string, or
 * undefined when the user cancelled (VS Code then does not start the session).
 */
async function pickProcess(entries: ProcessEntry[], title: string): Promise<string | undefined> {
  const picked = await vscode.window.showQuickPick(entries.map(pickItem), {
    title, placeHolder: 'Type a name, a pid or a word of the command line', matchOnDescription: true, matchOnDetail: true,
  });
  return picked?.pid;
}

class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  async resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined,
      config: vscode.DebugConfiguration): Promise<vscode.DebugConfiguration | undefined> {
    const checked = checkConfiguration(config, (program) => processesOf(program, ownProcesses()));
    if (checked.error) {
      void vscode.window.showErrorMessage(checked.error);
      return undefined; // abort the launch
    }
    if (checked.choose) {
      const chosen = new Set(checked.choose.map((entry) => entry.pid));
      const pid = await pickProcess(ownProcesses().filter((entry) => chosen.has(entry.pid)),
        `Attach to which process of ${config.program}?`);
      return pid === undefined ? undefined : { ...config, processId: Number(pid) };
    }
    return checked.config as vscode.DebugConfiguration;
  }
}

/** Where a session's program is, as this extension saw the messages pass. */
type RunState = 'starting' | 'stopped' | 'running';

/** Longer than the extension host's 200 ms debounce of tree changes, so each row is refreshed on its own. */
const REFETCH_SPACING_MS = 300;

class OpenMpTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: TreeNode[] = messageTree('No jompd debug session');
  private parents = new Map<TreeNode, TreeNode>();
  private readonly states = new Map<string, RunState>();
  private readonly revealed = new Set<string>();
  private readonly stoppedLwps = new Map<string, number>();
  view: vscode.TreeView<TreeNode> | undefined;

  private readonly pictures = new TreePictures();
  private refreshes = 0;

  show(picture: TreeNode[]): void {
    const roots = this.pictures.next(picture);
    if (roots === undefined) return; // the picture shown already: no refresh (TreePictures)
    this.roots = roots;
    this.parents = new Map();
    const walk = (node: TreeNode): void => node.children.forEach((child) => {
      this.parents.set(child, node);
      walk(child);
    });
    roots.forEach(walk);
    this.changed.fire(undefined);
    void this.refetchOpenRows(roots);
  }

  /**
   * Has VS Code fetch the children of the rows that start open again, one row at a time. VS Code 1.96's
   * workbench fetches the children of rows opened together in one batch, and when another fetch starts while
   * it hands the batch's answers out, the rows after the first get none and stay open and empty (issue 28
   * item 3: the teams after the first of a level). A row refreshed on its own is fetched on its own.
   */
  private async refetchOpenRows(roots: TreeNode[]): Promise<void> {
    const open: TreeNode[] = [];
    const walk = (node: TreeNode): void => {
      if (node.children.length > 0 && startsExpanded(node.kind)) {
        open.push(node);
        node.children.forEach(walk);
      }
    };
    roots.forEach(walk);
    for (const node of open) {
      await new Promise((resolve) => setTimeout(resolve, REFETCH_SPACING_MS));
      if (this.roots !== roots) return; // another picture came meanwhile
      this.changed.fire(node);
    }
  }

  state(session: vscode.DebugSession): RunState {
    return this.states.get(session.id) ?? 'starting';
  }

  /** Told when a session's program runs on from a stop. */
  onRunning: ((session: vscode.DebugSession) => void) | undefined;

  setState(session: vscode.DebugSession, state: RunState): void {
    const before = this.states.get(session.id);
    this.states.set(session.id, state);
    if (state === 'running' && before === 'stopped' && vscode.debug.activeDebugSession?.id === session.id) {
      // the picture of the last stop is no longer true: say so rather than show it as if it were
      this.refreshes++; // nor let an answer still on its way show it
      this.show(messageTree('The program is running: the OpenMP picture comes at the next stop'));
      this.onRunning?.(session);
    }
  }

  forget(session: vscode.DebugSession): void {
    this.states.delete(session.id);
    this.stoppedLwps.delete(session.id);
    this.revealed.delete(session.id);
  }

  /**
   * Asks the server for the picture, only when the program is stopped: before the first stop and while it
   * runs there is none, and asking would only earn an error.
   */
  async refresh(session: vscode.DebugSession | undefined, stoppedLwp?: number): Promise<void> {
    if (!session || session.type !== TYPE) {
      this.show(messageTree('No jompd debug session'));
      return;
    }
    if (stoppedLwp !== undefined) {
      this.stoppedLwps.set(session.id, stoppedLwp);
    }
    const state = this.state(session);
    if (state !== 'stopped') {
      this.show(messageTree(state === 'starting' ? 'The OpenMP picture comes at the first stop'
        : 'The program is running: the OpenMP picture comes at the next stop'));
      return;
    }
    const refresh = ++this.refreshes;
    try {
      const report = await session.customRequest(TREE_REQUEST);
      if (refresh !== this.refreshes) return; // a later refresh asked meanwhile: its answer is the newer picture
      const noStop = noStopMessage(report);
      if (noStop !== undefined) {
        this.show(messageTree(noStop)); // the program ran on meanwhile
        return;
      }
      this.show(buildTree(parseReport(report), this.stoppedLwps.get(session.id)));
    } catch (e) {
      if (refresh !== this.refreshes) return;
      this.show(messageTree(e instanceof Error ? e.message : String(e)));
      return;
    }
    if (!this.revealed.has(session.id) && this.view && this.roots.length > 0) {
      // the first stop of a session opens the view (it may be collapsed at the bottom of Run and Debug)
      this.revealed.add(session.id);
      try {
        // expand: false: the rows open as they start (startsExpanded), the process row among them
        await this.view.reveal(this.roots[0], { select: false, focus: false, expand: false });
      } catch {
        // the view cannot be shown now (its container is closed): the tree is there when it opens
      }
    }
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children.length === 0 ? vscode.TreeItemCollapsibleState.None
      : startsExpanded(node.kind) ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.kind;
    item.iconPath = new vscode.ThemeIcon(ICONS[node.kind]);
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node ? node.children : this.roots;
  }

  getParent(node: TreeNode): TreeNode | undefined {
    return this.parents.get(node);
  }
}

/** The requests that let the program run on from its stop. */
const RESUMES = ['continue', 'next', 'stepIn', 'stepOut', 'stepBack', 'reverseContinue', 'goto'];

/**
 * Follows the program's run state from the messages between VS Code and the server, and which frame each
 * DAP frame id VS Code holds is (the stackTrace answers), for the parallel stacks' frame selection.
 */
function trackRunState(tree: OpenMpTreeProvider, frames: FrameIndex): vscode.DebugAdapterTrackerFactory {
  return {
    createDebugAdapterTracker(session: vscode.DebugSession): vscode.DebugAdapterTracker {
      return {
        onWillReceiveMessage(message: { type?: string; command?: string; seq?: number; arguments?: StackTraceArguments }): void {
          if (message.type === 'request' && message.command === 'stackTrace' && typeof message.seq === 'number') {
            frames.request(session.id, message.seq, message.arguments);
          }
        },
        onDidSendMessage(message: { type?: string; event?: string; command?: string; request_seq?: number; success?: boolean;
          body?: { stackFrames?: StackFrameBody[]; totalFrames?: number } & StoppedBody }): void {
          // the program runs once the server says it does: a resume it refuses (a core file cannot run) leaves
          // the stop, and its picture, as they are
          if (message.type === 'response' && message.success === true && RESUMES.includes(message.command ?? '')) {
            tree.setState(session, 'running');
          }
          if (message.type === 'response' && message.command === 'stackTrace' && typeof message.request_seq === 'number') {
            frames.response(session.id, message.request_seq, message.body);
          }
          if (message.type === 'event' && message.event === 'stopped') {
            frames.stopped(session.id, message.body);
            tree.setState(session, 'stopped');
          } else if (message.type === 'event' && (message.event === 'continued' || message.event === 'terminated'
            || message.event === 'exited')) {
            tree.setState(session, 'running');
          }
        },
      };
    },
  };
}

export function activate(context: vscode.ExtensionContext): void {
  const tree = new OpenMpTreeProvider();
  const frames = new FrameIndex();
  const stacks = new ParallelStacksPanel(frames, (session) => tree.state(session) === 'stopped');
  tree.onRunning = () => { if (stacks.isOpen) stacks.running(); };
  const job = new JobPanel();
  tree.view = vscode.window.createTreeView('jompd.openmp', { treeDataProvider: tree, showCollapseAll: true });
  context.subscriptions.push(
    tree.view,
    vscode.debug.registerDebugAdapterDescriptorFactory(TYPE, new ServerFactory(context)),
    vscode.debug.registerDebugConfigurationProvider(TYPE, new ConfigurationProvider()),
    vscode.debug.registerDebugAdapterTrackerFactory(TYPE, trackRunState(tree, frames)),
    // ${command:pickProcess} in a jompd configuration (package.json's "variables") and ${command:jompd.pickProcess}
    vscode.commands.registerCommand('jompd.pickProcess', () => pickProcess(ownProcesses(), 'Attach to which process?')),
    vscode.commands.registerCommand('jompd.openmp.refresh', () => tree.refresh(vscode.debug.activeDebugSession)),
    vscode.commands.registerCommand('jompd.parallelStacks.show', () => stacks.show(vscode.debug.activeDebugSession)),
    vscode.commands.registerCommand('jompd.job.inspect', () => inspectJob(job,
      vscode.workspace.getConfiguration('jompd').get<string>('cliPath', ''))),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((event) => {
      if (event.session.type === TYPE && event.event === CHANGED_EVENT) {
        // the event follows a stopped event: the program is stopped now, whatever the tracker saw
        tree.setState(event.session, 'stopped');
        // the server names the stopped thread's LWP (jompd/openmpChanged's lwp): the tree marks that thread
        const body = event.body as { lwp?: number } | undefined;
        void tree.refresh(event.session, typeof body?.lwp === 'number' ? body.lwp : undefined);
        if (stacks.isOpen && event.session.id === vscode.debug.activeDebugSession?.id) {
          void stacks.refresh(event.session);
        }
      }
    }),
    vscode.debug.onDidChangeActiveDebugSession((session) => {
      void tree.refresh(session);
      if (stacks.isOpen) void stacks.refresh(session);
    }),
    vscode.debug.onDidTerminateDebugSession((session) => {
      if (session.type === TYPE) {
        tree.forget(session);
        frames.forget(session.id);
        if (stacks.isOpen) void stacks.refresh(undefined);
        tree.show(messageTree('The jompd debug session ended'));
      }
    }),
  );
}

export function deactivate(): void {}
