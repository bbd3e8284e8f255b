import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { listProcesses, openmpRuntimeIn, pickItem, processesOf } from '../src/processes';

test('the user\'s processes: a process started here, with its command line and executable', async () => {
  // a copy of sleep under another name: found by its executable, and by a link to it
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'jompd-processes-'));
  const program = path.join(dir, 'jompd-test-sleeper');
  fs.copyFileSync('/bin/sleep', program);
  fs.chmodSync(program, 0o700);
  fs.symlinkSync(program, path.join(dir, 'link'));
  const child = spawn(program, ['30']);
  try {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const mine = listProcesses(process.getuid!());
    const entry = mine.find((e) => e.pid === child.pid);
    assert.deepEqual(entry, { pid: child.pid, commandLine: `${program} 30`, executable: program, openmpRuntime: undefined });
    assert.deepEqual(processesOf(path.join(dir, 'link'), mine), [entry]);
    assert.deepEqual(pickItem(entry!), { label: 'jompd-test-sleeper', description: `pid ${child.pid}`,
      detail: `${program} 30`, pid: String(child.pid) });
    // another user's view has none of it
    assert.equal(listProcesses(process.getuid!() + 1).some((e) => e.pid === child.pid), false);
  } finally {
    child.kill();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('OpenMP runtimes are recognized in maps by their file names, and listed first', () => {
  const maps = (file: string): string => `7f0000000000-7f0000001000 r-xp 00000000 08:01 1234   ${file}\n`;
  assert.equal(openmpRuntimeIn(maps('/usr/lib/x86_64-linux-gnu/libomp.so.5')), 'libomp.so.5');
  assert.equal(openmpRuntimeIn(maps('/home/u/.cache/jompd/llvm-19/lib/libgomp.so.1')), 'libgomp.so.1');
  assert.equal(openmpRuntimeIn(maps('/opt/intel/lib/libiomp5.so')), 'libiomp5.so');
  assert.equal(openmpRuntimeIn(maps('/usr/lib/libompd.so') + maps('/usr/lib/libc.so.6') + '7f-80 rw-p 0 0 0\n'), undefined);
  assert.deepEqual(pickItem({ pid: 9, commandLine: '/w/a.out 4', executable: '/w/a.out', openmpRuntime: 'libomp.so.5' }),
    { label: 'a.out', description: 'pid 9 · OpenMP (libomp.so.5)', detail: '/w/a.out 4', pid: '9' });
});
