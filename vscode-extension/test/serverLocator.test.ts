import { test } from 'node:test';
import assert from 'node:assert/strict';
import { locateServer, ServerNotFoundError } from '../src/serverLocator';

const base = { extensionPath: '/ext', env: { PATH: '/usr/bin:/opt/jompd/bin', HOME: '/home/u' } as Record<string, string | undefined> };

test('the setting wins, with ~ expanded', () => {
  const found = locateServer({ ...base, setting: '~/jompd/bin/jompd-dap', isExecutable: () => true });
  assert.deepEqual(found, { command: '/home/u/jompd/bin/jompd-dap', args: ['--stdio'] });
});

test('a configured server that does not exist is an error, not a silent fallback', () => {
  assert.throws(() => locateServer({ ...base, setting: '/nope/jompd-dap', isExecutable: () => false }), ServerNotFoundError);
  assert.throws(() => locateServer({ ...base, setting: '', env: { JOMPD_DAP: '/nope' }, isExecutable: () => false }),
    /JOMPD_DAP/);
});

test('then $JOMPD_DAP, then the bundled server, then PATH', () => {
  assert.equal(locateServer({ ...base, setting: '', env: { ...base.env, JOMPD_DAP: '/x/jompd-dap' },
    isExecutable: () => true }).command, '/x/jompd-dap');
  assert.equal(locateServer({ ...base, setting: '', isExecutable: (f) => f === '/ext/server/bin/jompd-dap' }).command,
    '/ext/server/bin/jompd-dap');
  assert.equal(locateServer({ ...base, setting: '', isExecutable: (f) => f === '/opt/jompd/bin/jompd-dap' }).command,
    '/opt/jompd/bin/jompd-dap');
});

test('a bundled launcher that lost its executable bit runs through bash', () => {
  const found = locateServer({ ...base, setting: '', isExecutable: () => false, exists: (f) => f === '/ext/server/bin/jompd-dap' });
  assert.deepEqual(found, { command: '/bin/bash', args: ['/ext/server/bin/jompd-dap', '--stdio'] });
});

test('nothing found says what to set', () => {
  assert.throws(() => locateServer({ ...base, setting: '', isExecutable: () => false }), /jompd.serverPath/);
});
