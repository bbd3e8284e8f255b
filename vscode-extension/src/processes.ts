// The user's own processes, read from /proc, for attaching: which run OpenMP (a runtime library mapped), and
// which run a given executable. No VS Code API here.
import * as fs from 'fs';
import * as path from 'path';

export interface ProcessEntry {
  pid: number;
  /** The command line, its arguments joined by spaces. */
  commandLine: string;
  /** The executable (/proc/PID/exe), when it can be read. */
  executable?: string;
  /** The OpenMP runtime the process has mapped (libomp.so.5, libgomp.so.1, ...), if any. */
  openmpRuntime?: string;
}

/** An OpenMP runtime library, by file name: LLVM's libomp, GCC's libgomp, Intel's libiomp5. */
const OPENMP_RUNTIME = /^lib(omp|gomp|iomp5)\.so(\.|$)/;

function read(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return undefined; // gone meanwhile, or not ours to read
  }
}

/** The real user id of a process (the first field of status's Uid line). */
function ownerOf(procDir: string): number | undefined {
  const uid = /^Uid:\s+(\d+)/m.exec(read(path.join(procDir, 'status')) ?? '');
  return uid ? Number(uid[1]) : undefined;
}

/** The OpenMP runtime among a process's mapped files, by its maps. */
export function openmpRuntimeIn(maps: string): string | undefined {
  for (const line of maps.split('\n')) {
    const file = line.trim().split(/\s+/)[5];
    if (file?.startsWith('/') && OPENMP_RUNTIME.test(path.basename(file))) {
      return path.basename(file);
    }
  }
  return undefined;
}

/**
 * The processes of user {@code uid} (kernel threads and zombies, which have no command line, left out), the ones
 * running OpenMP first, each group newest (highest pid) first.
 */
export function listProcesses(uid: number, proc = '/proc'): ProcessEntry[] {
  const entries: ProcessEntry[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(proc);
  } catch {
    return entries;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    const dir = path.join(proc, name);
    if (ownerOf(dir) !== uid) continue;
    const commandLine = (read(path.join(dir, 'cmdline')) ?? '').split('\0').filter((arg) => arg !== '').join(' ');
    if (commandLine === '') continue;
    let executable: string | undefined;
    try {
      executable = fs.readlinkSync(path.join(dir, 'exe'));
    } catch {
      executable = undefined;
    }
    entries.push({ pid: Number(name), commandLine, executable, openmpRuntime: openmpRuntimeIn(read(path.join(dir, 'maps')) ?? '') });
  }
  return entries.sort((a, b) => Number(!!b.openmpRuntime) - Number(!!a.openmpRuntime) || b.pid - a.pid);
}

/** The entries whose executable is {@code program} (compared as real paths: a link to it is it). */
export function processesOf(program: string, entries: ProcessEntry[]): ProcessEntry[] {
  const real = (file: string): string => {
    try {
      return fs.realpathSync(file);
    } catch {
      return path.resolve(file);
    }
  };
  const wanted = real(program);
  return entries.filter((entry) => entry.executable !== undefined && real(entry.executable) === wanted);
}

/** A quick-pick row: the program's name, its pid and whether it runs OpenMP, the whole command line below. */
export function pickItem(entry: ProcessEntry): { label: string; description: string; detail: string; pid: string } {
  const name = path.basename(entry.executable ?? entry.commandLine.split(' ')[0]);
  return {
    label: name,
    description: `pid ${entry.pid}` + (entry.openmpRuntime ? ` · OpenMP (${entry.openmpRuntime})` : ''),
    detail: entry.commandLine,
    pid: String(entry.pid),
  };
}
