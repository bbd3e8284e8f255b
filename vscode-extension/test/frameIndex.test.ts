import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FrameIndex, passedOver, StackFrameBody } from '../src/frameIndex';

// The messages of a real session (VscodeBrowserIT, nested 2 2 at jompd_marker, code-server 4.96.4), as the
// extension's tracker saw them when a click in the parallel stacks selected innermost() of thread 2: the
// server's stopped event for thread 2, VS Code's first fetch (1 frame), then 19 more through its scheduler and,
// racing it, 20 more fetched by a callStackDown made too early. Frame ids as the server gave them.
const S = 'session-1';
const libc = (id: number): StackFrameBody => ({ id, source: { presentationHint: 'deemphasize' } });
const user = (id: number): StackFrameBody => ({ id });
/** Frames 1.. of thread 2 (levels 1-4 libc's futex wait, 5 fx_gate_wait, 6 innermost, ...), ids from {@code first}. */
const rest = (first: number, count: number): StackFrameBody[] =>
  Array.from({ length: count }, (_, i) => (i < 4 ? libc(first + i) : user(first + i)));

test('VS Code de-emphasizes a frame by its own hint, else its source\'s (debug.ts isFrameDeemphasized)', () => {
  assert.equal(passedOver(libc(1)), true);
  assert.equal(passedOver({ id: 1, presentationHint: 'subtle' }), true);
  assert.equal(passedOver(user(1)), false);
  assert.equal(passedOver({ id: 1, presentationHint: 'normal', source: { presentationHint: 'deemphasize' } }), false);
});

test('a thread\'s stack is settled only once VS Code\'s own fetches after the stop are answered', () => {
  const frames = new FrameIndex();
  const stops = frames.stops(S);
  frames.stopped(S, { threadId: 2, allThreadsStopped: true });
  assert.equal(frames.stops(S), stops + 1);
  frames.request(S, 29, { threadId: 2, startFrame: 0, levels: 1 });
  assert.equal(frames.settled(S, 2), false, 'a request unanswered');
  frames.response(S, 29, { stackFrames: [libc(39)] });
  assert.equal(frames.settled(S, 2), false, 'only the top frame: VS Code fetches 19 more 420 ms later');
  assert.equal(frames.stack(S, 2).next(0, true), 'unknown', 'a move down now makes VS Code fetch the rest itself');
  frames.request(S, 33, { threadId: 2, startFrame: 1, levels: 19 });
  frames.response(S, 33, { stackFrames: rest(58, 19) });
  assert.equal(frames.settled(S, 2), true);
  assert.equal(frames.stack(S, 2).levelOf(39), 0);
  assert.equal(frames.stack(S, 2).next(0, true), 5, 'down from the top passes over the libc frames to fx_gate_wait');
  assert.equal(frames.stack(S, 2).next(5, true), 6, 'then innermost');
  assert.equal(frames.stack(S, 2).next(5, false), 'wrap', 'up from fx_gate_wait: only passed-over frames, VS Code goes to the bottom');
  assert.equal(frames.stack(S, 2).next(19, true), 'unknown', 'the stack goes on past the 20 frames fetched (no totalFrames)');
});

test('when two fetches of the same frames race, the later answer\'s ids are the stack\'s: the earlier ones are stale', () => {
  const frames = new FrameIndex();
  frames.stopped(S, { threadId: 2, allThreadsStopped: true });
  frames.request(S, 29, { threadId: 2, startFrame: 0, levels: 1 });
  frames.response(S, 29, { stackFrames: [libc(39)] });
  frames.request(S, 33, { threadId: 2, startFrame: 1, levels: 19 });
  frames.request(S, 34, { threadId: 2, startFrame: 1, levels: 20 });
  frames.response(S, 33, { stackFrames: rest(58, 19) });
  assert.equal(frames.settled(S, 2), false, 'the second fetch is unanswered');
  frames.response(S, 34, { stackFrames: rest(77, 20) });
  assert.equal(frames.settled(S, 2), true);
  const stack = frames.stack(S, 2);
  assert.equal(stack.levelOf(81), 5, 'fx_gate_wait of the later answer');
  assert.equal(stack.levelOf(62), undefined, 'fx_gate_wait of the earlier answer: VS Code no longer holds it in the stack');
  assert.deepEqual(frames.level(S, 62), { threadId: 2, level: 5 }, 'which frame an id was stays known');
});

test('a stop drops the stacks it names; an answer to a request of before the stop fills none', () => {
  const frames = new FrameIndex();
  frames.stopped(S, { threadId: 1, allThreadsStopped: true });
  frames.request(S, 10, { threadId: 1, startFrame: 0, levels: 1 });
  frames.response(S, 10, { stackFrames: [user(1)] });
  frames.request(S, 11, { threadId: 1, startFrame: 1, levels: 19 });
  frames.request(S, 12, { threadId: 3, startFrame: 0, levels: 20 });
  frames.stopped(S, { threadId: 2, allThreadsStopped: true });
  assert.equal(frames.stack(S, 1).levelOf(1), undefined, 'thread 1\'s stack is dropped with every thread\'s');
  assert.equal(frames.settled(S, 1), false, 'its request of before the stop is still unanswered');
  frames.response(S, 11, { stackFrames: rest(2, 17), totalFrames: 18 });
  assert.equal(frames.stack(S, 1).levels.size, 0, 'the answer belongs to the stop before');
  assert.deepEqual(frames.level(S, 5), { threadId: 1, level: 4 });
  frames.stopped(S, { threadId: 3, allThreadsStopped: false });
  frames.response(S, 12, { stackFrames: [user(40)] });
  assert.equal(frames.stack(S, 3).levels.size, 0);
});

test('the end of a stack: from totalFrames, or an answer shorter than asked', () => {
  const frames = new FrameIndex();
  frames.stopped(S, { threadId: 4, allThreadsStopped: true });
  frames.request(S, 1, { threadId: 4, startFrame: 0, levels: 1 });
  frames.response(S, 1, { stackFrames: [user(100)] });
  frames.request(S, 2, { threadId: 4, startFrame: 1, levels: 19 });
  frames.response(S, 2, { stackFrames: [libc(101), user(102)], totalFrames: 3 });
  assert.equal(frames.settled(S, 4), true, 'levels 0-2 are the whole stack');
  assert.equal(frames.stack(S, 4).next(2, true), 'wrap', 'down from the bottom frame: VS Code goes to the top');
  assert.equal(frames.stack(S, 4).next(0, true), 2);
  frames.stopped(S, { threadId: 5, allThreadsStopped: true });
  frames.request(S, 3, { threadId: 5, startFrame: 0, levels: 20 });
  frames.response(S, 3, { stackFrames: [user(200), user(201)] });
  assert.equal(frames.stack(S, 5).end, 2);
  assert.equal(frames.settled(S, 5), true);
  frames.stopped(S, { threadId: 6, allThreadsStopped: true });
  frames.request(S, 4, { threadId: 6, startFrame: 0, levels: 20 });
  frames.response(S, 4, undefined);
  assert.equal(frames.settled(S, 6), false, 'a failed request tells nothing of the stack');
  frames.forget(S);
  assert.equal(frames.stops(S), 0);
});
