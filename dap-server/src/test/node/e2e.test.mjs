// End-to-end tests of jompd's DAP server driven by VS Code's own DAP test client
// (@vscode/debugadapter-testsupport) over real gdb on jompd's fixture programs.
// Run by NodeClientIT, which builds the fixtures, starts the server and passes everything in
// the JSON file named by JOMPD_E2E_CONFIG (see NodeClientIT for its fields).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import os from 'node:os';
import testsupport from '@vscode/debugadapter-testsupport';

const { DebugClient } = testsupport;
const config = JSON.parse(fs.readFileSync(process.env.JOMPD_E2E_CONFIG, 'utf8'));
const STOP = 120_000;

/** A client on the TCP server, or (stdio) on an adapter process the client starts itself. */
async function client({ stdio = false } = {}) {
  const dc = stdio ? new DebugClient('/bin/sh', config.stdioLauncher, 'jompd', {}, true)
                   : new DebugClient('unused', 'unused', 'jompd');
  dc.defaultTimeout = STOP;
  await (stdio ? dc.start() : dc.start(config.port));
  return dc;
}

/** Java .properties as the fixtures write them (ASCII, key=value). */
function readFacts(file) {
  const facts = {};
  for (const line of fs.readFileSync(file, 'latin1').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    facts[line.slice(0, eq)] = line.slice(eq + 1).replace(/\\(.)/g, '$1');
  }
  const threads = [];
  for (let k = 0; k < Number(facts.threads); k++) {
    const get = (field) => facts[`thread.${k}.${field}`];
    threads.push({ lwp: Number(get('lwp')), threadNum: Number(get('thread_num')), teamSize: Number(get('team_size')),
      level: Number(get('level')), activeLevel: Number(get('active_level')), maxActiveLevels: get('max_active_levels'),
      threadLimit: get('thread_limit'), schedule: get('schedule'),
      ancestors: (get('ancestors') || '').split(',').filter((x) => x !== '').map(Number) });
  }
  return { threads, markerThread: Number(facts.marker_thread) };
}

/** Every recorded OpenMP thread shows its OpenMP identity in its DAP thread name; returns lwp -> thread id. */
// `ompd threads`: one row per thread the program recorded and no other, each with its LWP, OpenMP thread
// number, level, team size and team path (the columns as GdbBridgeIT.checkThreads reads them)
function checkThreadRows(text, facts) {
  const rows = new Map();
  for (const line of text.split('\n')) {
    const m = /^\s*(\*?)\s*(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([-\d.]+)\s+(\S.*)$/.exec(line);
    if (m) {
      assert.ok(!rows.has(Number(m[3])), `one row for LWP ${m[3]}:\n${text}`);
      rows.set(Number(m[3]), m);
    }
  }
  assert.deepEqual([...rows.keys()].sort(), facts.threads.map((f) => f.lwp).sort(), text);
  for (const f of facts.threads) {
    const m = rows.get(f.lwp);
    const path = f.ancestors.slice(0, Math.max(0, f.level - 1));
    assert.deepEqual([Number(m[5]), Number(m[6]), Number(m[7]), m[8]],
      [f.threadNum, f.level, f.teamSize, path.length ? path.join('.') : '-'], `row of LWP ${f.lwp}: ${m[0]}`);
  }
}

function checkThreadNames(threads, facts) {
  const byLwp = new Map();
  for (const t of threads) {
    const m = /\(LWP (\d+)\)$/.exec(t.name);
    if (m) byLwp.set(Number(m[1]), t);
  }
  for (const f of facts.threads) {
    const t = byLwp.get(f.lwp);
    assert.ok(t, `a DAP thread for LWP ${f.lwp}`);
    // the team path (ancestor thread numbers from level 1 inward) tells apart threads of different teams
    const path = f.ancestors.slice(0, Math.max(0, f.level - 1));
    const prefix = path.length ? `${path.join('.')} · ` : '';
    assert.ok(t.name.startsWith(`omp ${prefix}${f.threadNum}/${f.teamSize} · level ${f.level} · `), `name of LWP ${f.lwp}: ${t.name}`);
  }
  return new Map([...byLwp].map(([lwp, t]) => [lwp, t.id]));
}

async function variables(dc, scopes, name) {
  const scope = scopes.find((s) => s.name === name);
  assert.ok(scope, `scope ${name} in ${scopes.map((s) => s.name)}`);
  const response = await dc.variablesRequest({ variablesReference: scope.variablesReference });
  return Object.fromEntries(response.body.variables.map((v) => [v.name, v.value]));
}

/** The four OpenMP scopes of a thread's top frame agree with what that thread recorded. */
async function checkScopes(dc, threadId, fact) {
  const stack = await dc.stackTraceRequest({ threadId, startFrame: 0, levels: 1 });
  const scopes = (await dc.scopesRequest({ frameId: stack.body.stackFrames[0].id })).body.scopes;
  assert.deepEqual(scopes.map((s) => s.name),
    ['Locals', 'OpenMP task', 'OpenMP parallel region', 'OpenMP thread', 'OpenMP process']);
  const region = await variables(dc, scopes, 'OpenMP parallel region');
  assert.equal(region['team-size-var'], String(fact.teamSize));
  assert.equal(region['levels-var'], String(fact.level));
  assert.equal(region['active-levels-var'], String(fact.activeLevel));
  const thread = await variables(dc, scopes, 'OpenMP thread');
  assert.equal(thread['thread-num-var'], String(fact.threadNum));
  const task = await variables(dc, scopes, 'OpenMP task');
  assert.equal(task['max-active-levels-var'], fact.maxActiveLevels);
  assert.equal(task['thread-limit-var'], fact.threadLimit);
  assert.equal(task['run-sched-var'], fact.schedule);
  const processRows = await variables(dc, scopes, 'OpenMP process');
  assert.equal(processRows['debug-var'], 'true');
}

test('launch (stdio adapter): stop at the marker, OpenMP names and scopes, step, continue to exit', { timeout: 200_000 }, async () => {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'jompd-e2e-'));
  const factsFile = path.join(work, 'facts.properties');
  const dc = await client({ stdio: true });
  try {
    // the initialized event follows the initialize response at once: listen before asking
    const initialized = dc.waitForEvent('initialized');
    const init = await dc.initializeRequest({ adapterID: 'jompd', linesStartAt1: true, columnsStartAt1: true });
    assert.equal(init.body.supportsConfigurationDoneRequest, true);
    await dc.launchRequest({ program: config.nestedProgram, args: ['4', '4'], cwd: work,
      environment: [{ name: 'JOMPD_FACTS', value: factsFile }] });
    await initialized;
    const bps = await dc.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'jompd_marker' }] });
    assert.equal(bps.body.breakpoints[0].verified, true);
    const stoppedEvent = dc.waitForEvent('stopped', STOP);
    const changed = dc.waitForEvent('jompd/openmpChanged', STOP);
    // assertStoppedLocation waits for the stop itself, then checks the top frame's source
    const location = dc.assertStoppedLocation('function breakpoint', { path: /fixture\.c$/ });
    await dc.configurationDoneRequest();
    const stopped = await stoppedEvent;
    await changed;
    assert.equal(stopped.body.reason, 'function breakpoint');
    assert.equal((await location).body.stackFrames[0].name, 'jompd_marker');

    const facts = readFacts(factsFile);
    const ids = checkThreadNames((await dc.threadsRequest()).body.threads, facts);
    const marker = facts.threads[facts.markerThread];
    assert.equal(stopped.body.threadId, ids.get(marker.lwp));
    for (const fact of facts.threads) {
      await checkScopes(dc, ids.get(fact.lwp), fact);
    }
    const tree = await dc.customRequest('jompd/openmpTree');
    assert.equal(tree.body.schema, 'jompd-inspect/1');
    assert.equal(tree.body.threads.length, facts.threads.length);
    const repl = await dc.evaluateRequest({ expression: 'ompd threads', context: 'repl' });
    checkThreadRows(repl.body.result, facts);

    const stepped = dc.waitForEvent('stopped', STOP);
    await dc.nextRequest({ threadId: stopped.body.threadId });
    assert.equal((await stepped).body.reason, 'step');
    const out = dc.waitForEvent('stopped', STOP);
    await dc.stepOutRequest({ threadId: stopped.body.threadId });
    assert.equal((await out).body.reason, 'step');
    const caller = await dc.stackTraceRequest({ threadId: stopped.body.threadId, startFrame: 0, levels: 1 });
    assert.equal(caller.body.stackFrames[0].name, 'fx_write_facts_and_mark');

    const exited = dc.waitForEvent('exited', STOP);
    const terminated = dc.waitForEvent('terminated', STOP);
    const result = dc.assertOutput('stdout', 'JOMPD_RESULT ok', STOP);
    await dc.continueRequest({ threadId: stopped.body.threadId });
    assert.equal((await exited).body.exitCode, 0);
    await terminated;
    await result;
  } finally {
    await dc.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
});

test('core file (TCP server): post-mortem threads and scopes match the facts, run control refused', { timeout: 200_000 }, async () => {
  const dc = await client();
  try {
    await dc.initializeRequest({ adapterID: 'jompd' });
    await dc.launchRequest({ program: config.core.program, coreDumpPath: config.core.core });
    const stoppedEvent = dc.waitForEvent('stopped', STOP);
    await dc.configurationDoneRequest();
    const stopped = await stoppedEvent;
    assert.equal(stopped.body.reason, 'entry'); // not 'exception': VS Code would draw its exception widget
    const facts = readFacts(config.core.facts);
    const ids = checkThreadNames((await dc.threadsRequest()).body.threads, facts);
    for (const fact of facts.threads) {
      await checkScopes(dc, ids.get(fact.lwp), fact);
    }
    const tree = await dc.customRequest('jompd/openmpTree');
    assert.equal(tree.body.target.kind, 'core');
    await assert.rejects(dc.continueRequest({ threadId: stopped.body.threadId }), /core file cannot run/);
  } finally {
    await dc.stop();
  }
});

test('attach (TCP server): a held program, then detach leaves it running', { timeout: 200_000 }, async () => {
  const dc = await client();
  try {
    await dc.initializeRequest({ adapterID: 'jompd' });
    await dc.attachRequest({ processId: config.attach.pid, program: config.attach.program, stopOnEntry: true });
    const stoppedEvent = dc.waitForEvent('stopped', STOP);
    await dc.configurationDoneRequest();
    assert.equal((await stoppedEvent).body.reason, 'entry');
    const facts = readFacts(config.attach.facts);
    const ids = checkThreadNames((await dc.threadsRequest()).body.threads, facts);
    const worker = facts.threads[facts.threads.length - 1];
    await checkScopes(dc, ids.get(worker.lwp), worker);
    await dc.disconnectRequest({ terminateDebuggee: false });
  } finally {
    await dc.stop();
  }
});

test('malformed input: error responses for bad requests, a clean close for bad framing', { timeout: 60_000 }, async () => {
  const dc = await client();
  try {
    await assert.rejects(dc.threadsRequest(), /initialize first/);
    await dc.initializeRequest({ adapterID: 'jompd' });
    await assert.rejects(dc.customRequest('noSuchCommand'), /unknown command/);
    await assert.rejects(dc.launchRequest({ program: 42 }), /must be a string/);
    await assert.rejects(dc.stackTraceRequest({ threadId: 1 }), /launch or attach first/);
  } finally {
    await dc.stop();
  }
  for (const bytes of ['Content-Length: 99999999999\r\n\r\n{}', 'Content-Length: nope\r\n\r\n{}']) {
    const closed = await new Promise((resolve, reject) => {
      const socket = net.createConnection(config.port, '127.0.0.1', () => socket.write(bytes));
      socket.on('close', () => resolve(true));
      socket.on('error', reject);
      setTimeout(() => resolve(false), 10_000);
    });
    assert.equal(closed, true, `server closes the connection after ${JSON.stringify(bytes)}`);
  }
  const invalid = await new Promise((resolve, reject) => {
    const socket = net.createConnection(config.port, '127.0.0.1', () => {
      const body = '{"seq": 1, "type": "request", "command": ';
      socket.write(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
    let data = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      data = Buffer.concat([data, chunk]);
      const headerEnd = data.indexOf('\r\n\r\n');
      if (headerEnd < 0) return;
      const length = Number(/Content-Length: (\d+)/.exec(data.subarray(0, headerEnd).toString('ascii'))[1]);
      if (data.length >= headerEnd + 4 + length) {
        socket.destroy();
        resolve(data.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8'));
      }
    });
    socket.on('error', reject);
  });
  const response = JSON.parse(invalid);
  assert.equal(response.success, false);
  assert.match(response.message, /invalid JSON/);
});
