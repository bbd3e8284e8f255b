// The VS Code side of jompd: the "jompd" debugger type (the server is jompd's DAP server) and the
// "OpenMP" tree view, fed by the server's jompd/openmpTree request and refreshed at every stop.
import * as fs from 'fs';
import * as vscode from 'vscode';
import { checkConfiguration } from './debugConfiguration';
import { buildTree, messageTree, parseReport, TreeNode } from './openmpTree';
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

class ConfigurationProvider implements vscode.DebugConfigurationProvider {
  resolveDebugConfigurationWithSubstitutedVariables(_folder: vscode.WorkspaceFolder | undefined,
      config: vscode.DebugConfiguration): vscode.ProviderResult<vscode.DebugConfiguration> {
    const checked = checkConfiguration(config);
    if (checked.error) {
      void vscode.window.showErrorMessage(checked.error);
      return undefined; // abort the launch
    }
    return checked.config as vscode.DebugConfiguration;
  }
}

class OpenMpTreeProvider implements vscode.TreeDataProvider<TreeNode> {
  private readonly changed = new vscode.EventEmitter<TreeNode | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  private roots: TreeNode[] = messageTree('No jompd debug session');

  show(roots: TreeNode[]): void {
    this.roots = roots;
    this.changed.fire(undefined);
  }

  async refresh(session: vscode.DebugSession | undefined): Promise<void> {
    if (!session || session.type !== TYPE) {
      this.show(messageTree('No jompd debug session'));
      return;
    }
    try {
      this.show(buildTree(parseReport(await session.customRequest(TREE_REQUEST))));
    } catch (e) {
      this.show(messageTree(e instanceof Error ? e.message : String(e)));
    }
  }

  getTreeItem(node: TreeNode): vscode.TreeItem {
    const item = new vscode.TreeItem(node.label, node.children.length === 0 ? vscode.TreeItemCollapsibleState.None
      : node.kind === 'process' || node.kind === 'region' ? vscode.TreeItemCollapsibleState.Expanded
        : vscode.TreeItemCollapsibleState.Collapsed);
    item.id = node.id;
    item.description = node.description;
    item.tooltip = node.tooltip;
    item.contextValue = node.kind;
    item.iconPath = new vscode.ThemeIcon(({ process: 'server-process', region: 'type-hierarchy', thread: 'debug-thread',
      task: 'symbol-event', icvs: 'symbol-variable', icv: 'symbol-constant', idle: 'debug-pause', problems: 'warning',
      message: 'info' } as Record<string, string>)[node.kind] ?? 'circle-outline');
    return item;
  }

  getChildren(node?: TreeNode): TreeNode[] {
    return node ? node.children : this.roots;
  }
}

export function activate(context: vscode.ExtensionContext): void {
  const tree = new OpenMpTreeProvider();
  context.subscriptions.push(
    vscode.debug.registerDebugAdapterDescriptorFactory(TYPE, new ServerFactory(context)),
    vscode.debug.registerDebugConfigurationProvider(TYPE, new ConfigurationProvider()),
    vscode.window.registerTreeDataProvider('jompd.openmp', tree),
    vscode.commands.registerCommand('jompd.openmp.refresh', () => tree.refresh(vscode.debug.activeDebugSession)),
    vscode.debug.onDidReceiveDebugSessionCustomEvent((event) => {
      if (event.session.type === TYPE && event.event === CHANGED_EVENT) {
        void tree.refresh(event.session);
      }
    }),
    vscode.debug.onDidChangeActiveDebugSession((session) => void tree.refresh(session)),
    vscode.debug.onDidTerminateDebugSession((session) => {
      if (session.type === TYPE) {
        tree.show(messageTree('The jompd debug session ended'));
      }
    }),
  );
}

export function deactivate(): void {}
