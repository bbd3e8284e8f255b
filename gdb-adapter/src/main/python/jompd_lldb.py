# jompd_lldb.py: OpenMP commands for LLDB, answered by jompd (OMPD in Java for LLVM's libomp).
#
# Load it once per LLDB session:
#     (lldb) command script import /path/to/jompd/lldb/jompd_lldb.py     # or in ~/.lldbinit
#     (lldb) ompd threads
#
# The LLDB door of the engine gdb's jompd.py starts (dev.jompd.gdb.Engine, protocol "jompd-gdb/1", see
# docs/gdb-bridge.md and docs/lldb.md): the same requests, the same questions, answered here with LLDB's SB API
# instead of gdb's Python API. Each request's context says "debugger": "lldb", so the engine heads its thread
# numbers "lldb" (SBThread.GetIndexID, the number `thread select N` takes) and names reads through LLDB so.
# A core file or a local live process the engine reads itself (the core, /proc/PID/mem); only what it cannot
# know itself it asks: the threads (LWP = SBThread.GetThreadID on Linux, pthread_t = fs_base), registers,
# memory (SBProcess.ReadMemory), symbols and modules.
#
# Read-only: reads memory and registers, never writes them, never evaluates an expression in the target,
# never changes the selected thread or frame. Standard library only (LLDB's Python 3).
#
# Starting the engine and the pipe are jompd_engine.py's (in the distribution's lib/, shared with gdb's jompd.py):
# both doors run the same jars and share the class-data archive in ~/.cache/jompd (only when that directory is
# this user's alone). $JOMPD_JAVA_OPTIONS adds JVM options; $JOMPD_NO_CDS=1 turns the archive off. Finding the engine: $JOMPD_HOME/lib, else ../lib next to this file (the distribution's
# lldb/jompd_lldb.py), else the build tree (gdb-adapter/target/jompd/lib).

import base64
import importlib.util
import os
import re
import sys

import lldb

_JOMPD_ENGINE_JAR = "gdb-adapter.jar"
_JOMPD_SYMBOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.$@]*$")
_JOMPD_SCRIPT_DIR = os.path.dirname(os.path.realpath(__file__))
_JOMPD_COMMANDS = ("init", "threads", "parallel", "tasks", "icvs", "tree", "stacks", "diagnose", "bt", "json")
_JOMPD_READ_LIMIT = 1 << 24


_jompd_engine_modules = {}


def _jompd_engine_module(lib):
    """The engine's pipe, jompd_engine.py from the lib/ the engine was found in (as jompd.py loads it: once per
    session, so what it says once stays said once across the engine's restarts)."""
    if lib not in _jompd_engine_modules:
        path = os.path.join(lib, "jompd_engine.py")
        if not os.path.isfile(path):
            raise JompdError("the jompd engine in %s lacks jompd_engine.py: reinstall jompd" % lib)
        spec = importlib.util.spec_from_file_location("jompd_engine", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _jompd_engine_modules[lib] = module
    return _jompd_engine_modules[lib]


def _say(text):
    """A note on LLDB's stderr, now: LLDB's Python stderr keeps what a command wrote unless it is flushed."""
    sys.stderr.write(text)
    sys.stderr.flush()


class JompdError(Exception):
    """A message for the user, printed as the command's error."""


class JompdLldbBridge:
    """One engine process per LLDB session, started on the first command."""

    def __init__(self):
        self.pipe = None
        self.failure = None
        self.next_id = 1
        self.modules_seen = None
        self.module_counter = 0
        self.last_stats = None

    # ------------------------------------------------------------ starting the engine (as jompd.py)

    @staticmethod
    def find_engine():
        candidates = []
        if os.environ.get("JOMPD_HOME"):
            candidates.append(os.path.join(os.environ["JOMPD_HOME"], "lib"))
        candidates.append(os.path.join(_JOMPD_SCRIPT_DIR, "..", "lib"))
        candidates.append(os.path.join(_JOMPD_SCRIPT_DIR, "..", "..", "..", "target", "jompd", "lib"))
        for lib in candidates:
            if os.path.isfile(os.path.join(lib, _JOMPD_ENGINE_JAR)):
                return os.path.realpath(lib)
        raise JompdError("cannot find the jompd engine (%s): set JOMPD_HOME to the jompd distribution "
                         "(built by `mvn package` into gdb-adapter/target/jompd)" % _JOMPD_ENGINE_JAR)

    def start(self):
        lib = self.find_engine()
        engine = _jompd_engine_module(lib)
        self.failure = engine.EngineFailure
        self.pipe = engine.EnginePipe("LLDB", _say)
        try:
            self.pipe.start(lib)
        except self.failure as e:
            raise JompdError(str(e))

    def running(self):
        return self.pipe is not None and self.pipe.running()

    def stop_engine(self):
        if self.pipe is not None:
            self.pipe.stop()

    # ------------------------------------------------------------ the pipe (jompd_engine.py, as jompd.py)

    def send(self, message):
        try:
            self.pipe.send(message)
        except self.failure as e:
            raise JompdError(str(e))

    def receive(self, timeout=None):
        try:
            return self.pipe.receive(timeout)
        except self.failure as e:
            raise JompdError(str(e))

    def run(self, debugger, command, args):
        """One ompd command: its text, or JompdError with the engine's message."""
        if not self.running():
            self.start()
        target = debugger.GetSelectedTarget()
        if target.IsValid() and target.GetProcess().GetState() in (lldb.eStateRunning, lldb.eStateStepping,
                                                                     lldb.eStateLaunching, lldb.eStateAttaching):
            raise JompdError("the process is running: stop it first (process interrupt)")
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "command": command, "args": args, "context": self.context(target)})
        try:
            while True:
                message = self.receive()
                if "ask" in message:
                    self.send(self.answer(target, message))
                elif message.get("reply") == request_id:
                    break
        except KeyboardInterrupt:
            self.stop_engine()
            raise JompdError("interrupted; the engine restarts at the next command")
        self.last_stats = message.get("stats")
        if "error" in message:
            raise JompdError(message["error"])
        return message.get("text", "")

    # ------------------------------------------------------------ what LLDB knows

    def context(self, target):
        process = target.GetProcess() if target.IsValid() else lldb.SBProcess()
        kind = "none"
        cores = []
        if process.IsValid():
            core = process.GetCoreFile()
            if core.IsValid() and core.fullpath:
                kind = "core"
                cores = [core.fullpath]
            elif process.GetState() not in (lldb.eStateInvalid, lldb.eStateExited, lldb.eStateDetached,
                                             lldb.eStateUnloaded):
                kind = "live" if self.is_local(target, process) else "remote"
        pid = process.GetProcessID() if process.IsValid() else 0
        if kind != "core" and not pid:
            kind = "none"
        context = {"target": kind, "inferior": 1, "pid": pid, "debugger": "lldb",
                   "executable": (target.GetExecutable().fullpath or "") if target.IsValid() else "",
                   "connection": "" if kind != "remote" else "lldb platform " + (target.GetPlatform().GetName() or "?"),
                   # LLDB's own stop counter: it changes whenever the process ran
                   "stop": process.GetStopID() if process.IsValid() else 0,
                   "modules": self.modules_generation(target)}
        if kind == "core":
            context["cores"] = cores
        thread = process.GetSelectedThread() if process.IsValid() else lldb.SBThread()
        if thread.IsValid():
            context["thread"] = {"num": thread.GetIndexID(), "lwp": thread.GetThreadID(),
                                 "pthread": self.pthread_of(thread)}
        return context

    @staticmethod
    def is_local(target, process):
        """Whether the process is this machine's, which the engine then reads itself (/proc/PID/mem). On Linux
        LLDB drives even a local process through lldb-server (gdb-remote), and a remote one can have a local
        process's pid: local only on the host platform, when /proc/PID runs the target's executable with every
        thread LLDB lists. Anything else is read through LLDB (a remote target), never a stranger's memory."""
        platform = target.GetPlatform()
        if not platform.IsValid() or platform.GetName() != "host":
            return False
        pid = process.GetProcessID()
        executable = target.GetExecutable().fullpath
        try:
            if not executable or not os.path.samefile("/proc/%d/exe" % pid, executable):
                return False
            tasks = set(os.listdir("/proc/%d/task" % pid))
        except OSError:
            return False
        return all(str(thread.GetThreadID()) in tasks for thread in process)

    def modules_generation(self, target):
        """A counter that moves when the target's module list changed (LLDB has no event count for it)."""
        seen = tuple((m.GetFileSpec().fullpath, m.GetObjectFileHeaderAddress().GetLoadAddress(target))
                     for m in target.module_iter()) if target.IsValid() else ()
        if seen != self.modules_seen:
            self.modules_seen = seen
            self.module_counter += 1
        return self.module_counter

    @staticmethod
    def register(frame, name):
        value = frame.FindRegister(name)
        if not value.IsValid():
            return None
        error = lldb.SBError()
        number = value.GetValueAsUnsigned(error, 0)
        return None if error.Fail() else number & 0xFFFFFFFFFFFFFFFF

    @staticmethod
    def pthread_of(thread):
        """The thread's pthread_t: fs_base, x86-64 glibc's thread pointer (LLDB has no libthread_db handle)."""
        value = JompdLldbBridge.register(thread.GetFrameAtIndex(0), "fs_base")
        return "0x%x" % value if value else None

    def answer(self, target, question):
        what = question.get("what")
        reply = {"answer": question["ask"]}
        process = target.GetProcess()
        try:
            if what == "read":
                length = int(question["length"])
                if not 0 <= length <= _JOMPD_READ_LIMIT:
                    raise ValueError("cannot read %d bytes at once" % length)
                error = lldb.SBError()
                memory = process.ReadMemory(int(question["address"], 16), length, error) if length else b""
                if error.Fail() or memory is None or len(memory) != length:
                    raise ValueError("Cannot access memory at address %s: %s"
                                     % (question["address"], error.GetCString() or "short read"))
                reply["bytes"] = base64.b64encode(bytes(memory)).decode("ascii")
            elif what == "threads":
                reply["threads"] = [{"num": t.GetIndexID(), "lwp": t.GetThreadID(), "pthread": self.pthread_of(t)}
                                    for t in process]
                reply["threads"].sort(key=lambda entry: entry["num"])
            elif what == "symbol":
                reply.update(self.symbol(target, question["name"]))
            elif what == "objfiles":
                # the files LLDB reads the modules from; not its pseudo-modules ("[vdso]"), which are no files
                reply["objfiles"] = [{"filename": m.GetFileSpec().fullpath, "buildId": self.build_id(m)}
                                     for m in target.module_iter()
                                     if m.GetFileSpec().fullpath and not m.GetFileSpec().fullpath.startswith("[")]
            elif what == "registers":
                reply["threads"] = self.registers(process, question["names"], bool(question.get("selected")))
            elif what == "frames":
                reply.update(self.frames(target, process.GetSelectedThread(), int(question.get("limit", 256))))
            else:
                reply["error"] = "unknown question %r (not answered by jompd_lldb.py)" % what
        except (ValueError, KeyError, OverflowError, TypeError) as e:
            reply["error"] = str(e)
        return reply

    @staticmethod
    def symbol(target, name):
        if not _JOMPD_SYMBOL_NAME.match(name):
            raise ValueError("not a symbol name: %r" % name)
        for context in target.FindSymbols(name):
            address = context.GetSymbol().GetStartAddress().GetLoadAddress(target)
            if address != lldb.LLDB_INVALID_ADDRESS:
                return {"address": "0x%x" % address, "module": context.GetModule().GetFileSpec().basename or ""}
        raise ValueError("No symbol \"%s\" in current context." % name)

    @staticmethod
    def build_id(module):
        """The GNU build-id as gdb prints it (lower-case hex): LLDB's UUID of the module, which is the build-id when
        the file has one, else a 4-byte CRC LLDB makes up (.gnu_debuglink's): no build-id then (None), as gdb says."""
        uuid = (module.GetUUIDString() or "").replace("-", "").lower()
        return uuid if len(uuid) >= 16 else None

    @staticmethod
    def frames(target, thread, limit):
        """The thread's backtrace, innermost first, in gdb's words (`#N  0xPC in NAME () at FILE:LINE`), each with
        its canonical frame address as LLDB's unwinder computes it (SBFrame.GetCFA): the engine compares it with
        the tasks' OMPT frames to mark whose code each frame runs."""
        frames = []
        count = thread.GetNumFrames() if thread.IsValid() else 0
        for level in range(min(count, limit)):
            frame = thread.GetFrameAtIndex(level)
            pc = frame.GetPC()
            name = frame.GetFunctionName()
            if not name or name.startswith("___lldb_unnamed_symbol"):
                name = "??"  # LLDB's made-up name of a function the file does not name: unknown, as gdb says
            text = "#%-3d 0x%016x in %s ()" % (level, pc, name)
            line = frame.GetLineEntry()
            if line.IsValid() and line.GetLine():
                text += " at %s:%d" % (line.GetFileSpec().fullpath, line.GetLine())
            elif frame.GetModule().IsValid():
                text += " from " + (frame.GetModule().GetFileSpec().fullpath or "?")
            cfa = frame.GetCFA()
            frames.append({"level": level, "pc": "0x%x" % pc,
                           "cfa": "0x%x" % (cfa if cfa != lldb.LLDB_INVALID_ADDRESS else 0), "text": text})
        return {"frames": frames, "more": count > limit}

    @staticmethod
    def registers(process, names, selected_only=False):
        """Each thread's (or the selected thread's) innermost-frame registers; selects nothing."""
        threads = [process.GetSelectedThread()] if selected_only else list(process)
        listed = []
        for thread in threads:
            if not thread.IsValid():
                continue
            frame = thread.GetFrameAtIndex(0)
            values = {name: JompdLldbBridge.register(frame, name) for name in names} if frame.IsValid() else {}
            listed.append({"lwp": thread.GetThreadID(),
                           "registers": {n: "0x%x" % v for n, v in values.items() if v is not None}})
        return listed


_bridge = None


def jompd_bridge():
    global _bridge
    if _bridge is None:
        _bridge = JompdLldbBridge()
    return _bridge


def ompd(debugger, command, result, internal_dict):
    """OpenMP debugging with jompd: OMPD for LLVM's OpenMP runtime (libomp).

Usage: ompd threads | diagnose | parallel | tasks | icvs [scope|ICV] | tree [all] | stacks | bt [N] | json | init
The commands show what the OpenMP runtime knows about the stopped program: its threads, parallel
regions, tasks and ICVs, and why threads wait. They work on a core file and on a process LLDB runs or
attached to, follow LLDB's selected thread and never change it. Run the program with OMP_DEBUG=enabled:
only then does libomp track thread states and task frames. Requires Java 25 and the jompd engine
(JOMPD_HOME, or this script inside the jompd distribution)."""
    words = command.strip().split(None, 1)
    name = words[0] if words else ""
    args = words[1] if len(words) > 1 else ""
    if name not in _JOMPD_COMMANDS:
        result.SetError("jompd: %s: use ompd %s" % ("unknown command \"ompd %s\"" % name if name else "no command",
                                                    " | ".join(_JOMPD_COMMANDS)))
        return
    try:
        text = jompd_bridge().run(debugger, name, args)
    except JompdError as e:
        result.SetError("jompd: %s" % e)
        return
    except Exception as e:  # a bug here must not end the user's LLDB command with a traceback
        jompd_bridge().stop_engine()
        result.SetError("jompd: internal error in jompd_lldb.py (a bug: please report it): %r; the engine restarts "
                        "at the next command" % e)
        return
    result.Print(text)


def __lldb_init_module(debugger, internal_dict):
    debugger.HandleCommand("command script add -o -f %s.ompd ompd" % __name__)
