import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkConfiguration, JompdConfiguration } from '../src/debugConfiguration';

test('an empty configuration (no launch.json) becomes the default launch', () => {
  assert.equal(checkConfiguration({}).config?.request, 'launch');
});

test('launch needs a program or a core file', () => {
  assert.match(checkConfiguration({ type: 'jompd', request: 'launch', name: 'x' }).error ?? '', /program/);
  assert.ok(checkConfiguration({ type: 'jompd', request: 'launch', name: 'x', program: '/a.out' }).config);
  assert.ok(checkConfiguration({ type: 'jompd', request: 'launch', name: 'x', coreDumpPath: '/core' }).config);
});

test('attach needs a numeric process id; a picked string id becomes a number', () => {
  assert.equal(checkConfiguration({ type: 'jompd', request: 'attach', name: 'x', processId: '4711' }).config?.processId, 4711);
  assert.match(checkConfiguration({ type: 'jompd', request: 'attach', name: 'x', processId: 'abc' }).error ?? '', /processId/);
  assert.match(checkConfiguration({ type: 'jompd', request: 'attach', name: 'x' }).error ?? '', /processId/);
  assert.match(checkConfiguration({ type: 'jompd', request: 'attach', name: 'x', processId: 1, coreDumpPath: '/c' }).error ?? '',
    /launch/);
});

test('unknown request kinds are refused', () => {
  assert.match(checkConfiguration({ type: 'jompd', request: 'teleport', name: 'x' }).error ?? '', /launch.*attach/);
});

test('recorder is a boolean of launches of a program, not of attaches or cores', () => {
  assert.equal(checkConfiguration({ type: 'jompd', request: 'launch', name: 'x', program: '/a.out', recorder: true }).config?.recorder, true);
  const wrong = { type: 'jompd', request: 'launch', name: 'x', program: '/a.out', recorder: 'yes' } as unknown as JompdConfiguration;
  assert.match(checkConfiguration(wrong).error ?? '',
    /recorder.*true or false/);
  assert.match(checkConfiguration({ type: 'jompd', request: 'attach', name: 'x', processId: 1, recorder: true }).error ?? '',
    /recorder/);
  assert.match(checkConfiguration({ type: 'jompd', request: 'launch', name: 'x', coreDumpPath: '/c', recorder: true }).error ?? '',
    /recorder/);
});

test('attach by program: its one process is taken, several are for the user to pick, none is an error', () => {
  const attach = { type: 'jompd', request: 'attach', name: 'x', program: '/w/a.out' };
  const one = checkConfiguration(attach, (program) => program === '/w/a.out' ? [{ pid: 42, commandLine: '/w/a.out 3' }] : []);
  assert.deepEqual(one, { config: { ...attach, processId: 42 } });
  const two = [{ pid: 42, commandLine: '/w/a.out 3' }, { pid: 43, commandLine: '/w/a.out 4' }];
  assert.deepEqual(checkConfiguration(attach, () => two), { config: attach, choose: two });
  assert.deepEqual(checkConfiguration(attach, () => []), { error: 'jompd: no process of yours runs /w/a.out (attach by '
    + '"program" looks for your processes of that executable; give "processId" for another)' });
  // a process id given wins over the program (which then is only for symbols)
  assert.deepEqual(checkConfiguration({ ...attach, processId: '7' }, () => two), { config: { ...attach, processId: 7 } });
});
