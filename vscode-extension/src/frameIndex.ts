// What VS Code holds of each thread's call stack, learnt from the DAP messages passing the extension's debug
// adapter tracker: which frame a DAP frame id is (thread and level), the frames of the thread's stack at the
// current stop (the latest id VS Code fetched for each level), whether VS Code passes over a frame when it
// moves up or down the call stack, and whether a stackTrace request for the thread is still unanswered.
// The parallel stacks view focuses a frame through VS Code's own call-stack moves (parallelStacksPanel.ts);
// a move is only made when VS Code's view of the stack is complete and still: see FrameIndex.settled.

/** How many frames VS Code 1.96 fetches after a stop: 1 at once, 19 more 420 ms later (supportsDelayedStackTraceLoading). */
export const FIRST_FETCH = 20;

export interface StackTraceArguments { threadId?: number; startFrame?: number; levels?: number }
export interface StackFrameBody {
  id: number;
  presentationHint?: string;
  source?: { presentationHint?: string };
}
export interface StoppedBody { threadId?: number; allThreadsStopped?: boolean }

/** One level of a thread's stack at this stop: the id VS Code holds for it, and whether its moves skip it. */
export interface Level { id: number; passedOver: boolean }

/** A thread's stack as VS Code holds it at this stop. */
export class ThreadStack {
  readonly levels = new Map<number, Level>();
  /** The number of frames, once an answer told or showed the end (fewer frames than asked). */
  end: number | undefined;
  pending = 0;

  /** The level whose current id is {@code frameId}; undefined for an id of an earlier answer or stop. */
  levelOf(frameId: number): number | undefined {
    for (const [level, known] of this.levels) {
      if (known.id === frameId) return level;
    }
    return undefined;
  }

  /** Whether levels 0 to {@code upTo} are known, or the end before them. */
  covers(upTo: number): boolean {
    const last = this.end === undefined ? upTo : Math.min(upTo, this.end - 1);
    for (let level = 0; level <= last; level++) {
      if (!this.levels.has(level)) return false;
    }
    return true;
  }

  /**
   * Where VS Code's call-stack move from {@code from} lands (debugCommands.ts navigateCallStack: the next frame
   * it does not de-emphasize): a level; 'wrap' when there is none that way (down: VS Code goes to the top frame,
   * up: to the bottom); 'unknown' when down reaches levels not fetched yet (VS Code fetches them first).
   */
  next(from: number, down: boolean): number | 'wrap' | 'unknown' {
    for (let level = down ? from + 1 : from - 1; level >= 0; level += down ? 1 : -1) {
      const known = this.levels.get(level);
      if (!known) return down && (this.end === undefined || level < this.end) ? 'unknown' : 'wrap';
      if (!known.passedOver) return level;
    }
    return 'wrap';
  }
}

/**
 * VS Code's de-emphasis (debug.ts isFrameDeemphasized): the frame's hint, else its source's, 'deemphasize' or
 * 'subtle'. Its call-stack moves pass over such a frame.
 */
export function passedOver(frame: StackFrameBody): boolean {
  const hint = frame.presentationHint ?? frame.source?.presentationHint;
  return hint === 'deemphasize' || hint === 'subtle';
}

/** The frames VS Code holds, per debug session. */
export class FrameIndex {
  private readonly sessions = new Map<string, {
    frames: Map<number, { threadId: number; level: number }>;
    asked: Map<number, { threadId: number; startFrame: number; levels: number }>;
    stacks: Map<number, ThreadStack>;
    stops: number;
  }>();

  private of(session: string) {
    let state = this.sessions.get(session);
    if (!state) {
      state = { frames: new Map(), asked: new Map(), stacks: new Map(), stops: 0 };
      this.sessions.set(session, state);
    }
    return state;
  }

  private stackOf(session: string, threadId: number): ThreadStack {
    const stacks = this.of(session).stacks;
    let stack = stacks.get(threadId);
    if (!stack) {
      stack = new ThreadStack();
      stacks.set(threadId, stack);
    }
    return stack;
  }

  /** A stopped event: VS Code drops the call stacks of the threads it names (all of them with allThreadsStopped). */
  stopped(session: string, body: StoppedBody | undefined): void {
    const state = this.of(session);
    state.stops++;
    for (const [threadId, stack] of state.stacks) {
      if (body?.allThreadsStopped || body?.threadId === undefined || body.threadId === threadId) {
        const replaced = new ThreadStack();
        replaced.pending = stack.pending; // requests of before still get (cancelled) answers
        state.stacks.set(threadId, replaced);
      }
    }
    // an answer to a request of before the stop must not fill the new stacks: forget what it asked
    for (const [seq, asked] of state.asked) {
      if (body?.allThreadsStopped || body?.threadId === undefined || body.threadId === asked.threadId) {
        state.asked.set(seq, { ...asked, levels: -1 });
      }
    }
  }

  /** How many stopped events the session has had. */
  stops(session: string): number {
    return this.of(session).stops;
  }

  request(session: string, seq: number, args: StackTraceArguments | undefined): void {
    if (typeof args?.threadId !== 'number') return;
    this.of(session).asked.set(seq, { threadId: args.threadId, startFrame: args.startFrame ?? 0, levels: args.levels ?? 0 });
    this.stackOf(session, args.threadId).pending++;
  }

  response(session: string, requestSeq: number, body: { stackFrames?: StackFrameBody[]; totalFrames?: number } | undefined): void {
    const state = this.of(session);
    const asked = state.asked.get(requestSeq);
    if (!asked) return;
    state.asked.delete(requestSeq);
    const stack = this.stackOf(session, asked.threadId);
    stack.pending = Math.max(0, stack.pending - 1);
    const frames = body?.stackFrames ?? [];
    frames.forEach((frame, i) => state.frames.set(frame.id, { threadId: asked.threadId, level: asked.startFrame + i }));
    if (asked.levels < 0) return; // asked before the latest stop
    frames.forEach((frame, i) => stack.levels.set(asked.startFrame + i, { id: frame.id, passedOver: passedOver(frame) }));
    if (body === undefined) return; // a failed request: nothing learnt
    if (typeof body.totalFrames === 'number' && body.totalFrames > 0) {
      stack.end = body.totalFrames;
    } else if (asked.levels > 0 && frames.length < asked.levels) {
      stack.end = asked.startFrame + frames.length;
    }
  }

  /** Which thread and level a frame id VS Code holds is (of any answer this session). */
  level(session: string, frameId: number): { threadId: number; level: number } | undefined {
    return this.of(session).frames.get(frameId);
  }

  /** The thread's stack at this stop, as VS Code holds it. */
  stack(session: string, threadId: number): ThreadStack {
    return this.stackOf(session, threadId);
  }

  /**
   * Whether VS Code is done fetching the thread's stack after a stop: no stackTrace request for it unanswered,
   * and the frames VS Code fetches at a stop (FIRST_FETCH, or to the end) known. A call-stack move made before
   * that fetches the rest a second time, racing VS Code's own fetch, and the later answer replaces the frames:
   * the focused frame is then none of the thread's, and the next move lands on the first frame VS Code shows.
   */
  settled(session: string, threadId: number): boolean {
    const stack = this.stackOf(session, threadId);
    return stack.pending === 0 && stack.covers(FIRST_FETCH - 1);
  }

  forget(session: string): void {
    this.sessions.delete(session);
  }
}
