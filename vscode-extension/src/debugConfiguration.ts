// Checks and completes jompd debug configurations before a session starts. No VS Code API here.

export interface JompdConfiguration {
  type?: string; request?: string; name?: string; program?: string; coreDumpPath?: string;
  processId?: string | number;
  /** Launch only: run the program with the jompd-recorder (an OMPT tool recording what OpenMP does). */
  recorder?: boolean;
  /** Launch only: the OpenMP runtime the program runs on. */
  openmpRuntime?: 'jompd' | 'program';
  [key: string]: unknown;
}

/** The configuration used when there is no launch.json: run the active C/C++/Fortran file's program. */
export function defaultConfiguration(): JompdConfiguration {
  return { type: 'jompd', request: 'launch', name: 'OpenMP: launch', program: '${workspaceFolder}/a.out',
    cwd: '${workspaceFolder}', args: [] };
}

/** The processes running an executable: their pids and command lines. */
export type ProcessesOf = (program: string) => { pid: number; commandLine: string }[];

/**
 * Completes a configuration or says why it cannot start (a message for the user), before the server
 * would refuse it: launch needs a program, attach a process id or a program whose process to attach to
 * ({@code processesOf} finds them: one is taken, several are returned as {@code choose}, for the user to pick),
 * a core file goes with launch.
 */
export function checkConfiguration(config: JompdConfiguration, processesOf?: ProcessesOf):
    { config?: JompdConfiguration; error?: string; choose?: { pid: number; commandLine: string }[] } {
  if (!config.type && !config.request && !config.name) {
    return { config: defaultConfiguration() };
  }
  if (config.request !== 'launch' && config.request !== 'attach') {
    return { error: `jompd: "request" must be "launch" or "attach", not ${JSON.stringify(config.request)}` };
  }
  if (config.recorder !== undefined && typeof config.recorder !== 'boolean') {
    return { error: `jompd: "recorder" must be true or false, not ${JSON.stringify(config.recorder)}` };
  }
  if (config.recorder && (config.request === 'attach' || config.coreDumpPath)) {
    return { error: 'jompd: "recorder" loads the jompd-recorder into a program jompd launches; a process or core '
      + 'that ran with it shows what it recorded without this attribute' };
  }
  if (config.request === 'attach') {
    if (config.coreDumpPath) {
      return { error: 'jompd: a core file is opened with "request": "launch" and "coreDumpPath"' };
    }
    const noProcessId = config.processId === undefined || config.processId === null
      || (typeof config.processId === 'string' && config.processId.trim() === '');
    if (noProcessId && typeof config.program === 'string' && config.program !== '' && processesOf) {
      const running = processesOf(config.program);
      if (running.length === 0) {
        return { error: `jompd: no process of yours runs ${config.program} (attach by "program" looks for your `
          + 'processes of that executable; give "processId" for another)' };
      }
      if (running.length > 1) {
        return { config, choose: running };
      }
      return { config: { ...config, processId: running[0].pid } };
    }
    const pid = typeof config.processId === 'string' ? Number(config.processId.trim()) : config.processId;
    if (pid === undefined || !Number.isInteger(pid) || pid <= 0) {
      return { error: `jompd: attach needs "processId", a process id (not ${JSON.stringify(config.processId)}), `
        + 'or "program", the executable of a process of yours' };
    }
    return { config: { ...config, processId: pid } };
  }
  if (!config.program && !config.coreDumpPath) {
    return { error: 'jompd: launch needs "program" (and "coreDumpPath" for a core file)' };
  }
  return { config };
}
