// The picture of a whole MPI job in the parallel stacks webview: `jompd job ... --json` run for a Slurm job
// id, an mpirun/mpiexec pid or a directory of cores, its jompd-job/1 answer drawn by src/jobPicture.ts; a
// click on a frame lists the ranks and threads there (their state and part in the diagnosis).
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import { JobDocument, JobError, jobArguments, jobSelection, JobTarget, locateCli, parseJob, renderJobHtml } from './jobPicture';
import { shell } from './parallelStacksPanel';

/** Asks which job, runs the command line on it and shows the merged picture. */
export async function inspectJob(panel: JobPanel, cliSetting: string): Promise<void> {
  const picked = await vscode.window.showQuickPick([
    { label: 'Slurm job', description: 'JOBID or JOBID.STEP of a running job', source: 'slurm' as const },
    { label: 'mpirun / mpiexec process', description: 'the launcher\'s pid: its MPIR process table names the ranks', source: 'mpirun' as const },
    { label: 'Core files', description: 'a directory with one core per rank', source: 'cores' as const },
  ], { title: 'Inspect an MPI job with jompd' });
  if (!picked) return;
  let target: JobTarget;
  if (picked.source === 'cores') {
    const folder = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, title: 'The cores of the job' });
    if (!folder || folder.length === 0) return;
    target = { kind: 'cores', directory: folder[0].fsPath };
  } else {
    const value = await vscode.window.showInputBox({ title: picked.label, prompt: picked.description,
      validateInput: (text) => { try { jobArguments(picked.source === 'slurm' ? { kind: 'slurm', job: text } : { kind: 'mpirun', pid: Number(text) }); return undefined; } catch (e) { return (e as Error).message; } } });
    if (!value) return;
    target = picked.source === 'slurm' ? { kind: 'slurm', job: value } : { kind: 'mpirun', pid: Number(value) };
  }
  const cli = locateCli({ setting: cliSetting, env: process.env });
  const args = jobArguments(target);
  await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: `jompd ${args.join(' ')}` }, async () => {
    try {
      const output = await new Promise<string>((resolve, reject) => {
        execFile(cli, args, { maxBuffer: 256 * 1024 * 1024 }, (error, stdout, stderr) => {
          if (error && stdout.trim().length === 0) reject(new JobError(stderr.trim() || error.message));
          else resolve(stdout);
        });
      });
      const doc = parseJob(output);
      const title = target.kind === 'slurm' ? `Slurm job ${target.job}` : target.kind === 'mpirun' ? `mpirun ${target.pid}` : target.directory;
      panel.show(doc, title);
    } catch (e) {
      void vscode.window.showErrorMessage(`jompd job: ${e instanceof Error ? e.message : String(e)}`);
    }
  });
}

export class JobPanel {
  private panel: vscode.WebviewPanel | undefined;
  private doc: JobDocument | undefined;
  private html = '';

  show(doc: JobDocument, title: string): void {
    this.doc = doc;
    this.html = renderJobHtml(doc, title);
    if (!this.panel) {
      this.panel = vscode.window.createWebviewPanel('jompd.jobStacks', `Job: ${title}`,
        { viewColumn: vscode.ViewColumn.Active }, { enableScripts: true, localResourceRoots: [], retainContextWhenHidden: true });
      this.panel.webview.html = shell(this.panel.webview);
      this.panel.onDidDispose(() => { this.panel = undefined; });
      this.panel.webview.onDidReceiveMessage((message: { type?: string; box?: string; depth?: number }) => {
        if (message.type === 'ready') {
          void this.panel?.webview.postMessage({ type: 'render', html: this.html });
        } else if (message.type === 'select' && typeof message.box === 'string' && typeof message.depth === 'number') {
          void this.select(message.box, message.depth);
        }
      });
    } else {
      this.panel.title = `Job: ${title}`;
      this.panel.reveal();
      void this.panel.webview.postMessage({ type: 'render', html: this.html });
    }
  }

  /** A click on a frame: the ranks and threads there, each with its state and part in the diagnosis. */
  private async select(box: string, depth: number): Promise<void> {
    if (!this.doc) return;
    const chosen = jobSelection(this.doc, box, depth);
    if (!chosen) return;
    await vscode.window.showQuickPick(chosen.members.map((m) => ({
      label: `${m.ranks} · ${m.thread}`, description: m.state,
      detail: [...m.roles, `shown: rank ${m.representative.rank ?? '?'} on ${m.representative.host} (pid ${m.representative.pid})`].join(' · '),
    })), { title: `${chosen.members.length} thread group${chosen.members.length === 1 ? '' : 's'} at ${chosen.step}` });
  }
}
