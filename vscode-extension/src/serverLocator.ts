// Where the jompd DAP server comes from. No VS Code API here, so it is unit-tested.
import * as path from 'path';

export interface ServerCommand { command: string; args: string[] }

export interface LocatorInput {
  /** The jompd.serverPath setting (may be empty). */
  setting: string;
  /** process.env. */
  env: Record<string, string | undefined>;
  /** The extension's installation directory (a bundled server lives in server/ there). */
  extensionPath: string;
  /** Whether a file exists and is executable. */
  isExecutable: (file: string) => boolean;
  /** Whether a file exists (a .vsix may not keep the bundled launcher's executable bit). */
  exists?: (file: string) => boolean;
}

/** Thrown with a message that tells the user what to set. */
export class ServerNotFoundError extends Error {}

/**
 * The server launcher, in order: the jompd.serverPath setting, $JOMPD_DAP, the server bundled with the
 * extension (server/bin/jompd-dap), then jompd-dap on PATH. The server speaks DAP on stdio.
 */
export function locateServer(input: LocatorInput): ServerCommand {
  const args = ['--stdio'];
  const explicit = [input.setting.trim(), (input.env.JOMPD_DAP ?? '').trim()].filter((p) => p.length > 0);
  for (const candidate of explicit) {
    const file = expandHome(candidate, input.env);
    if (!input.isExecutable(file)) {
      throw new ServerNotFoundError(`the jompd DAP server ${file} does not exist or is not executable `
        + '(check the jompd.serverPath setting or $JOMPD_DAP)');
    }
    return { command: file, args };
  }
  const bundled = path.join(input.extensionPath, 'server', 'bin', 'jompd-dap');
  if (input.isExecutable(bundled)) {
    return { command: bundled, args };
  }
  if (input.exists?.(bundled)) {
    return { command: '/bin/bash', args: [bundled, ...args] };
  }
  for (const directory of (input.env.PATH ?? '').split(path.delimiter)) {
    if (directory.length > 0 && input.isExecutable(path.join(directory, 'jompd-dap'))) {
      return { command: path.join(directory, 'jompd-dap'), args };
    }
  }
  throw new ServerNotFoundError('cannot find the jompd DAP server: set jompd.serverPath to bin/jompd-dap of the '
    + 'jompd distribution (dap-server/target/jompd-dap after a build), or put jompd-dap on PATH');
}

function expandHome(file: string, env: Record<string, string | undefined>): string {
  return file.startsWith('~/') && env.HOME ? path.join(env.HOME, file.slice(2)) : file;
}
