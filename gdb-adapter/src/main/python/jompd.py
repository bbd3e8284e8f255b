# jompd.py: OpenMP commands for gdb, answered by jompd (OMPD in Java for LLVM's libomp).
#
# Load it once per gdb session, no `ompd init` needed:
#     (gdb) source /path/to/jompd/gdb/jompd.py        # or in ~/.gdbinit, or: gdb -x jompd.py ...
#     (gdb) ompd threads
#
# This file stays thin. On the first ompd command it starts one jompd engine (a Java 25 process) and
# talks to it over pipes, one JSON object per line (protocol "jompd-gdb/1"):
#   gdb -> engine   {"id": n, "command": "threads", "args": "...", "context": {...}}
#   engine -> gdb   {"ask": q, "what": "read" | "threads" | "symbol" | "objfiles" | "frames", ...}   (any number)
#   gdb -> engine   {"answer": q, ...} or {"answer": q, "error": "..."}
#   engine -> gdb   {"reply": n, "text": "..."} or {"reply": n, "error": "..."}
# The context says what gdb's target is (core file, live process, remote), the process, the selected
# thread, and two counters bumped on gdb's events (the inferior ran or stopped; objfiles changed) so
# that the engine drops its caches. A core file or a local live process the engine reads itself (the
# core, /proc/PID/mem); for a remote target memory comes through gdb (Inferior.read_memory).
#
# Finding the engine: $JOMPD_HOME/lib, else ../lib next to this file (the jompd distribution's
# gdb/jompd.py), else the build tree (gdb-adapter/target/jompd/lib). Finding Java 25: the engine's
# lib/jompd-java.sh says, by the rule every door shares (docs/command-line.md). $JOMPD_JAVA_OPTIONS adds JVM options;
# $JOMPD_NO_CDS=1 turns the class-data archive off; $JOMPD_GDB_NO_THREAD_HANDLES=1 (diagnostics) makes
# the bridge read each thread's fs_base instead of using libthread_db's thread handles.
#
# `ompd step` runs in gdb itself (breakpoints, step, finish); where to break comes in the engine's hello
# ("step"), and the entry point of the code a breakpoint starts from the engine (the internal commands
# "region-entry" and "task-function"), and so does, from that entry on, the move at each stop on the way to
# the code's first line ("code-move"): this file knows no runtime function, decodes no registers and
# holds no rule about lines.
#
# Standard library only (gdb's Python 3). Never changes the selected thread or frame (but `ompd step`,
# which moves as `step` does).

import base64
import importlib.util
import json
import os
import re
import subprocess
import time

import gdb



def _jompd_script_dir():
    """The directory this file is in (None if unknown). Not from __file__ alone: gdb runs a sourced script
    in __main__ and sets __file__ only when it is unset, so when another script sources this one (the
    .deb's /etc/gdb/gdbinit.d/jompd.py does: gdb.execute("source /opt/jompd/gdb/jompd.py")) __file__ is
    that script's name. The compiled code's file name is always this file's; __file__ is the fallback for
    an exec of this text, whose code has no file name."""
    code_file = _jompd_script_dir.__code__.co_filename
    named = code_file if os.path.isfile(code_file) else globals().get("__file__")
    return os.path.dirname(os.path.realpath(named)) if named else None


_JOMPD_SCRIPT_DIR = _jompd_script_dir()
_JOMPD_ENGINE_JAR = "gdb-adapter.jar"
_JOMPD_SYMBOL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.$@]*$")


_jompd_engine_modules = {}


def _jompd_engine_module(lib):
    """The engine's pipe, jompd_engine.py from the distribution's lib/ the engine was found in (shared with LLDB's
    door); loaded once per session, so what it says once (a cache it does not use) stays said once across restarts."""
    if lib not in _jompd_engine_modules:
        path = os.path.join(lib, "jompd_engine.py")
        if not os.path.isfile(path):
            raise JompdUnavailable("the jompd engine in %s lacks jompd_engine.py: reinstall jompd" % lib)
        spec = importlib.util.spec_from_file_location("jompd_engine", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        _jompd_engine_modules[lib] = module
    return _jompd_engine_modules[lib]


class JompdUnavailable(Exception):
    """The engine cannot run here; the message says what to install or set."""


class JompdBridge:
    """One engine process per gdb session, started on the first command."""

    def __init__(self):
        self.pipe = None
        self.failure = None
        self.next_id = 1
        self.stop_counter = 0
        self.module_counter = 0
        self.core_checks = {}
        self.last_stats = None
        self.hello = {}
        self.connect_events()

    # ------------------------------------------------------------ gdb's events -> cache generations

    def connect_events(self):
        events = gdb.events
        events.cont.connect(self.on_run)
        events.stop.connect(self.on_run)
        events.exited.connect(self.on_exit)
        events.new_objfile.connect(self.on_modules)
        events.clear_objfiles.connect(self.on_modules)
        for name in ("memory_changed", "register_changed", "inferior_call"):
            registry = getattr(events, name, None)
            if registry is not None:
                registry.connect(self.on_run)

    def disconnect_events(self):
        events = gdb.events
        for registry, handler in ((events.cont, self.on_run), (events.stop, self.on_run),
                                  (events.exited, self.on_exit), (events.new_objfile, self.on_modules),
                                  (events.clear_objfiles, self.on_modules)):
            try:
                registry.disconnect(handler)
            except Exception:
                pass
        for name in ("memory_changed", "register_changed", "inferior_call"):
            registry = getattr(events, name, None)
            if registry is not None:
                try:
                    registry.disconnect(self.on_run)
                except Exception:
                    pass

    def on_run(self, event=None):
        self.stop_counter += 1

    def on_exit(self, event=None):
        self.stop_counter += 1
        self.module_counter += 1

    def on_modules(self, event=None):
        self.stop_counter += 1
        self.module_counter += 1

    # ------------------------------------------------------------ starting the engine

    @staticmethod
    def find_engine():
        candidates = []
        if os.environ.get("JOMPD_HOME"):
            candidates.append(os.path.join(os.environ["JOMPD_HOME"], "lib"))
        if _JOMPD_SCRIPT_DIR:
            candidates.append(os.path.join(_JOMPD_SCRIPT_DIR, "..", "lib"))
            candidates.append(os.path.join(_JOMPD_SCRIPT_DIR, "..", "..", "..", "target", "jompd", "lib"))
        for lib in candidates:
            if os.path.isfile(os.path.join(lib, _JOMPD_ENGINE_JAR)):
                return os.path.realpath(lib)
        raise JompdUnavailable("cannot find the jompd engine (%s): set JOMPD_HOME to the jompd distribution "
                               "(built by `mvn package` into gdb-adapter/target/jompd)" % _JOMPD_ENGINE_JAR)

    def start(self):
        lib = self.find_engine()
        engine = _jompd_engine_module(lib)
        self.failure = engine.EngineFailure
        self.pipe = engine.EnginePipe("gdb", lambda text: gdb.write(text, gdb.STDERR))
        try:
            self.pipe.start(lib)
        except self.failure as e:
            raise JompdUnavailable(str(e))
        self.hello = self.pipe.hello

    def running(self):
        return self.pipe is not None and self.pipe.running()

    def stop_engine(self):
        if self.pipe is not None:
            self.pipe.stop()

    # ------------------------------------------------------------ the pipe (jompd_engine.py)

    def send(self, message):
        try:
            self.pipe.send(message)
        except self.failure as e:
            raise gdb.GdbError("jompd: %s" % e)

    def receive(self, timeout=None):
        try:
            return self.pipe.receive(timeout)
        except self.failure as e:
            raise gdb.GdbError("jompd: %s" % e)

    # ------------------------------------------------------------ requests

    def request(self, command, args):
        if not self.running():
            self.start()
        request_id = self.next_id
        self.next_id += 1
        self.send({"id": request_id, "command": command, "args": args, "context": self.context()})
        try:
            while True:
                message = self.receive()
                if "ask" in message:
                    self.send(self.answer(message))
                elif message.get("reply") == request_id:
                    return message
        except KeyboardInterrupt:
            # Mid-request the two sides are out of step: start afresh next time.
            self.stop_engine()
            raise gdb.GdbError("jompd: interrupted; the engine restarts at the next command")

    def step_entry_points(self):
        """Where `ompd step` breaks, from the engine's hello: {"regionStarts": [...], "taskStarts": [...],
        "runtimeLibraryPrefix": "..."} (starts the engine if needed)."""
        try:
            if not self.running():
                self.start()
        except JompdUnavailable as e:
            raise gdb.GdbError("jompd: " + str(e))
        return self.hello.get("step") or {}

    def run(self, command, args):
        try:
            reply = self.request(command, args)
        except JompdUnavailable as e:
            raise gdb.GdbError("jompd: " + str(e))
        self.last_stats = reply.get("stats")
        if "error" in reply:
            raise gdb.GdbError("jompd: " + reply["error"])
        return reply.get("text", "")

    # ------------------------------------------------------------ what gdb knows

    @staticmethod
    def pthread_of(thread):
        """The thread's pthread_t, from its libthread_db handle (no thread switch), or None."""
        if os.environ.get("JOMPD_GDB_NO_THREAD_HANDLES"):
            return None  # diagnostics: take pthread ids from fs_base, as for targets without libthread_db
        try:
            handle = thread.handle()
        except Exception:
            return None
        if handle and len(handle) == 8:
            value = int.from_bytes(handle, "little")
            return "0x%x" % value if value else None
        return None

    def context(self):
        inferior = gdb.selected_inferior()
        connection = inferior.connection
        kind = {"native": "live", "core": "core", "remote": "remote",
                "extended-remote": "remote"}.get(connection.type if connection else None, "none")
        pid = inferior.pid
        if kind != "core" and not pid:
            kind = "none"
        context = {"target": kind, "inferior": inferior.num, "pid": pid,
                   "executable": inferior.progspace.filename or "",
                   "connection": ("%s %s" % (connection.type, connection.details or "")).strip() if connection else "",
                   "stop": self.stop_counter, "modules": self.module_counter}
        if kind == "core":
            context["cores"] = self.core_files()
        thread = gdb.selected_thread()
        if thread is not None and thread.is_valid():
            context["thread"] = {"num": thread.num, "lwp": thread.ptid[1], "pthread": self.pthread_of(thread)}
        return context

    def is_core(self, path):
        if path not in self.core_checks:
            try:
                with open(path, "rb") as f:
                    header = f.read(18)
                self.core_checks[path] = (len(header) == 18 and header[:4] == b"\x7fELF"
                                          and int.from_bytes(header[16:18], "little") == 4)  # ET_CORE
            except OSError:
                self.core_checks[path] = False
        return self.core_checks[path]

    def core_files(self):
        """The core files gdb holds open (its file descriptors), else the one `info target` names."""
        cores = []
        try:
            for fd in os.listdir("/proc/self/fd"):
                try:
                    path = os.readlink("/proc/self/fd/" + fd)
                except OSError:
                    continue
                if path.startswith("/") and os.path.isfile(path) and path not in cores and self.is_core(path):
                    cores.append(path)
        except OSError:
            pass
        if not cores:
            text = gdb.execute("info target", to_string=True)
            match = re.search(r"Local core dump file:\s*`(.*)', file type", text)
            if match:
                cores.append(match.group(1))
        return cores

    def answer(self, question):
        what = question.get("what")
        reply = {"answer": question["ask"]}
        try:
            if what == "read":
                memory = gdb.selected_inferior().read_memory(int(question["address"], 16), int(question["length"]))
                reply["bytes"] = base64.b64encode(bytes(memory)).decode("ascii")
            elif what == "threads":
                reply["threads"] = self.threads(bool(question.get("pthreads")))
            elif what == "symbol":
                name = question["name"]
                if not _JOMPD_SYMBOL_NAME.match(name):
                    raise ValueError("not a symbol name: %r" % name)
                address = int(gdb.parse_and_eval("(unsigned long)&" + name))
                reply["address"] = "0x%x" % address
                library = gdb.current_progspace().solib_name(address)
                reply["module"] = os.path.basename(library or gdb.current_progspace().filename or "")
            elif what == "objfiles":
                # the files gdb reads the modules from (sysroot applied; "target:…" when fetched remotely)
                reply["objfiles"] = [{"filename": o.filename, "buildId": o.build_id}
                                     for o in gdb.objfiles() if o.is_valid() and o.filename]
            elif what == "frames":
                reply.update(self.frames(int(question.get("limit", 256))))
            elif what == "registers":
                reply["threads"] = self.registers(question["names"], bool(question.get("selected")))
            else:
                reply["error"] = "unknown question %r" % what
        except (gdb.error, gdb.MemoryError, ValueError, KeyError, OverflowError) as e:
            reply["error"] = str(e)
        return reply

    def threads(self, need_pthreads):
        listed = []
        missing = []
        for thread in gdb.selected_inferior().threads():
            entry = {"num": thread.num, "lwp": thread.ptid[1] or thread.ptid[0],
                     "pthread": self.pthread_of(thread)}
            if entry["pthread"] is None and need_pthreads:
                missing.append((thread, entry))
            listed.append(entry)
        if missing:
            self.read_fs_base(missing)
        listed.sort(key=lambda entry: entry["num"])
        return listed

    @staticmethod
    def registers(names, selected_only=False):
        """Each thread's innermost-frame registers {names} (what jompd's unwinder starts from), or only the
        selected thread's; restores the selection."""
        selected = gdb.selected_thread()
        if selected_only:
            if selected is None or not selected.is_valid():
                return []
            newest = gdb.newest_frame()
            return [{"lwp": selected.ptid[1] or selected.ptid[0],
                     "registers": {name: "0x%x" % (int(newest.read_register(name)) & 0xFFFFFFFFFFFFFFFF)
                                   for name in names}}]
        try:
            frame = gdb.selected_frame()
        except gdb.error:
            frame = None
        listed = []
        try:
            for thread in gdb.selected_inferior().threads():
                entry = {"lwp": thread.ptid[1] or thread.ptid[0], "registers": {}}
                try:
                    thread.switch()
                    newest = gdb.newest_frame()
                    for name in names:
                        entry["registers"][name] = "0x%x" % (int(newest.read_register(name)) & 0xFFFFFFFFFFFFFFFF)
                except gdb.error:
                    pass  # a thread gdb cannot read: its stack says "no registers"
                listed.append(entry)
        finally:
            if selected is not None and selected.is_valid():
                selected.switch()
                if frame is not None and frame.is_valid():
                    frame.select()
        return listed

    @staticmethod
    def read_fs_base(missing):
        """fs_base (x86-64 glibc: the pthread_t) of threads gdb has no handle for; restores the selection."""
        selected = gdb.selected_thread()
        try:
            frame = gdb.selected_frame()
        except gdb.error:
            frame = None
        try:
            for thread, entry in missing:
                try:
                    thread.switch()
                    value = int(gdb.newest_frame().read_register("fs_base")) & 0xFFFFFFFFFFFFFFFF
                    entry["pthread"] = "0x%x" % value if value else None
                except gdb.error:
                    pass
        finally:
            if selected is not None and selected.is_valid():
                selected.switch()
                if frame is not None and frame.is_valid():
                    frame.select()

    @staticmethod
    def frame_id_stack(frame):
        """The CFA in gdb's id of {frame} (printed `{stack=0x…,code=0x…,…}`, as `info frame`'s "frame at"),
        for the outermost frame shown (main, with `backtrace past-main` off), which has no caller whose
        rsp would give it; 0 if gdb prints no such id."""
        match = re.search(r"\bstack=(0x[0-9a-fA-F]+)", str(frame))
        return int(match.group(1), 16) if match else 0

    @staticmethod
    def frames(limit):
        """The selected thread's backtrace, innermost first (reading frames does not select them).

        Each frame's "cfa" is its canonical frame address: the stack pointer of its caller (the older
        frame) at the call. The engine compares CFA - 16 (the frame-pointer address OMPT records) with
        the tasks' OMPT frames; a frame's own rbp is unreliable where code omits the frame pointer.
        """
        frames = []
        frame = gdb.newest_frame()
        level = 0
        while frame is not None and level < limit:
            pc = frame.pc()
            name = frame.name() or "??"
            text = "#%-3d 0x%016x in %s ()" % (level, pc, name)
            try:
                sal = frame.find_sal()
                if sal.symtab is not None and sal.line:
                    text += " at %s:%d" % (sal.symtab.filename, sal.line)
                else:
                    library = gdb.solib_name(pc)
                    if library:
                        text += " from " + library
            except gdb.error:
                pass
            try:
                older = frame.older()
            except gdb.error:
                older = None
            cfa = 0
            if older is not None:
                try:
                    cfa = int(older.read_register("rsp")) & 0xFFFFFFFFFFFFFFFF
                except (gdb.error, ValueError):
                    cfa = 0
            if cfa == 0:
                cfa = JompdBridge.frame_id_stack(frame)
            frames.append({"level": level, "pc": "0x%x" % pc, "cfa": "0x%x" % cfa, "text": text})
            frame = older
            level += 1
        return {"frames": frames, "more": frame is not None}


def jompd_bridge():
    """The session's bridge (kept on the gdb module, so sourcing this file again reuses its engine)."""
    bridge = getattr(gdb, "_jompd_bridge", None)
    if bridge is None:
        bridge = JompdBridge()
        gdb._jompd_bridge = bridge
    return bridge


class JompdPrefixCommand(gdb.Command):
    """OpenMP debugging with jompd: OMPD for LLVM's OpenMP runtime (libomp).

The ompd commands show what the OpenMP runtime knows about the stopped program: its threads, parallel
regions, tasks and ICVs. They work on a process gdb runs or attached to, on a core file and on a
gdbserver target; no `ompd init` is needed. They follow gdb's selected thread and never change it.
Run the program with OMP_DEBUG=enabled: only then does libomp track thread states and task frames.

Requires Java 25 (JOMPD_JAVA, JAVA_HOME, /usr/lib/jvm or PATH) and the jompd engine (JOMPD_HOME, or
this script inside the jompd distribution)."""

    def __init__(self):
        super().__init__("ompd", gdb.COMMAND_STATUS, gdb.COMPLETE_NONE, True)


class JompdSubcommand(gdb.Command):
    def __init__(self, name, doc, completions=()):
        self.__doc__ = doc
        self.jompd_name = name
        self.jompd_completions = completions
        super().__init__("ompd " + name, gdb.COMMAND_STATUS)

    def complete(self, text, word):
        word = word or ""
        return [c for c in self.jompd_completions if c.startswith(word)]

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        text = jompd_bridge().run(self.jompd_name, arg)
        gdb.write(text)


class JompdJsonCommand(JompdSubcommand):
    def invoke(self, arg, from_tty):
        self.dont_repeat()
        text = jompd_bridge().run("json", "")
        target = arg.strip()
        if target:
            with open(os.path.expanduser(target), "w", encoding="utf-8") as out:
                out.write(text)
            gdb.write("jompd: wrote %s\n" % target)
        else:
            gdb.write(text)


class JompdStepCommand(gdb.Command):
    """Steps like `step`, and into the OpenMP code the line starts.

Usage: ompd step
A line with `#pragma omp parallel` (or a task the selected thread runs at once, or at a taskwait) is
stepped into: it stops at the first statement of the region's or the task's code that this thread runs
(past the region's `{` and the code of the directive's clauses, which compilers put on the pragma's
line), instead of in the runtime or after the region. Runtime functions the line calls are stepped over.
Other threads run meanwhile, as with `step`. Needs a live process."""

    # Where the runtime starts a region's or a task's code comes from the engine (ompd-core's
    # RuntimeEntryPoints), and so does the entry point of that code at each.
    MAX_MOVES = 200

    def __init__(self):
        super().__init__("ompd step", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        thread = gdb.selected_thread()
        connection = gdb.selected_inferior().connection
        if thread is None or gdb.selected_inferior().pid == 0 or connection is None or connection.type == "core":
            raise gdb.GdbError("ompd step: the program is not running")
        if thread.is_running():
            raise gdb.GdbError("ompd step: the selected thread is running")
        entry_points = jompd_bridge().step_entry_points()
        self.task_starts = tuple(entry_points.get("taskStarts", ()))
        self.runtime_prefix = entry_points.get("runtimeLibraryPrefix")
        stops = []
        def on_stop(event):
            stops.append(event)
        gdb.events.stop.connect(on_stop)
        helpers = {}
        quiet = self.Quiet()
        try:
            quiet.begin()
            for location in tuple(entry_points.get("regionStarts", ())) + self.task_starts:
                helpers[location] = self.thread_breakpoint(location, thread, temporary=False)
            helpers = {k: v for k, v in helpers.items() if v is not None}
            try:
                self.step(thread, stops, helpers)
            except gdb.error as e:
                gdb.write("ompd step: stopped here: %s\n" % e)
        finally:
            quiet.end()
            gdb.events.stop.disconnect(on_stop)
            for bp in helpers.values():
                if bp.is_valid():
                    bp.delete()
        if gdb.selected_inferior().pid != 0 and gdb.selected_thread() is not None:
            gdb.execute("frame", from_tty)

    class Quiet:
        """No report of every intermediate stop (gdb prints stops even under to_string): CLI
        notifications off (gdb 12 and later) while the command moves, the user's setting back after."""

        def __init__(self):
            self.saved = None

        def begin(self):
            try:
                self.saved = gdb.parameter("suppress-cli-notifications")
                gdb.execute("set suppress-cli-notifications on", to_string=True)
            except (gdb.error, RuntimeError):
                self.saved = None  # an older gdb: the stops are shown

        def end(self):
            if self.saved is not None:
                gdb.execute("set suppress-cli-notifications %s" % ("on" if self.saved else "off"), to_string=True)
                self.saved = None

    @staticmethod
    def thread_breakpoint(location, thread, temporary):
        try:
            bp = gdb.Breakpoint(location, internal=True, temporary=temporary)
        except gdb.error:
            return None  # no such function (a runtime without OMPD): that kind of OpenMP code is stepped over
        bp.thread = thread.num
        bp.silent = True
        return bp

    @staticmethod
    def line_of(frame):
        sal = frame.find_sal()
        return (sal.symtab.fullname(), sal.line) if sal.symtab is not None and sal.line else None

    def in_runtime(self, frame):
        if frame.find_sal().symtab is None:
            return True
        library = gdb.current_progspace().solib_name(frame.pc()) or ""
        # the runtime by its real name: under `ompd run` a gcc program loads it as libgomp.so.1
        return bool(library) and bool(self.runtime_prefix) \
            and os.path.basename(os.path.realpath(library)).startswith(self.runtime_prefix)

    def step(self, thread, stops, helpers):
        start = self.line_of(gdb.selected_frame())
        walk = None  # from the code's entry on: its stops, [file, line, entry file, entry line] each
        del stops[:]
        gdb.execute("step", to_string=True)
        for _ in range(self.MAX_MOVES):
            if not thread.is_valid() or gdb.selected_inferior().pid == 0:
                return  # the program ended
            if gdb.selected_thread() != thread:
                return  # another thread stopped it (a breakpoint, a signal): stay there, as `step` does
            event = stops[-1] if stops else None
            del stops[:]
            hit = [bp for bp in getattr(event, "breakpoints", []) if bp in helpers.values()]
            if hit:
                location = next(name for name, bp in helpers.items() if bp is hit[0])
                target = self.code_begun(location)
                for bp in helpers.values():
                    bp.delete()
                helpers.clear()
                entry = self.thread_breakpoint("*0x%x" % target, thread, temporary=True) if target else None
                if entry is not None:  # never a continue without the stop at its end
                    gdb.execute("continue", to_string=True)
                    if entry.is_valid():
                        entry.delete()  # stopped elsewhere first (another breakpoint, the end): stay there
                        return
                    walk = [self.code_stop(gdb.selected_frame())]  # at the entry: on to its first line
                    gdb.execute("step", to_string=True)
                    continue
            frame = gdb.selected_frame()
            if self.in_runtime(frame):
                try:
                    gdb.execute("finish", to_string=True)
                except gdb.error:
                    return  # the outermost frame
            elif walk is not None:
                walk.append(self.code_stop(frame))
                move = self.code_move(walk)
                if move == "step":
                    gdb.execute("step", to_string=True)
                elif move == "finish":
                    try:
                        gdb.execute("finish", to_string=True)
                    except gdb.error:
                        return
                else:
                    return
            elif self.line_of(frame) == start:
                gdb.execute("step", to_string=True)
            else:
                return

    @staticmethod
    def code_stop(frame):
        """[file, line, file, line]: where {frame} is and where its function's first instruction is."""
        sal = frame.find_sal()
        at = [sal.symtab.fullname(), sal.line] if sal.symtab is not None and sal.line else ["", 0]
        entry = ["", 0]
        while frame is not None and frame.type() == gdb.INLINE_FRAME:
            frame = frame.older()  # the function the code is compiled in, not one inlined into it
        function = frame.function() if frame is not None else None
        if function is not None:
            try:
                first = gdb.find_pc_line(int(function.value().address))
                if first.symtab is not None and first.line:
                    entry = [first.symtab.fullname(), first.line]
            except (gdb.error, RuntimeError, TypeError):
                pass  # no address for it: no function entry to compare with
        return at + entry

    @staticmethod
    def code_move(walk):
        """"step", "finish" or "arrived" (the code's first line) at the walk's last stop: the engine's rule
        (ompd-core's RuntimeEntryPoints.codeMove). Where it cannot answer, the step stops here."""
        try:
            return jompd_bridge().run("code-move", json.dumps(walk)).strip()
        except gdb.GdbError:
            return "arrived"

    def code_begun(self, location):
        """The entry of the OpenMP code that begins at helper {location}: the region's or the task's."""
        try:
            if location in self.task_starts:
                return int(jompd_bridge().run("task-function", "").strip(), 16)
            return int(jompd_bridge().run("region-entry", location).strip(), 16)
        except (gdb.error, gdb.GdbError, ValueError):
            return None


class JompdNextCommand(JompdStepCommand):
    """Steps like `next`, and out of the OpenMP code whose last line it leaves.

Usage: ompd next
From the last statement of a parallel region's or a task's code, `next` would stop on the directive's
line (where compilers end the function they outline for it) or in the runtime. `ompd next` goes on as
a step over a function's last line returns to its caller: the thread that started the region stops on
the first line after the region; one that ran a task at a taskwait stops there, an undeferred task's
thread after the task's directive; a worker of the team, with none of the program's code below the
runtime, stops in the runtime's function that called the code. Elsewhere it is `next`. Other threads
run meanwhile, as with `next`. Needs a live process."""

    # The move at each stop comes from the engine (ompd-core's RuntimeEntryPoints.leaveMove), the rule
    # the DAP server's Step Over follows too.
    C_LIBRARY_PREFIXES = ("libc.so", "libpthread.so", "ld-linux")

    def __init__(self):
        gdb.Command.__init__(self, "ompd next", gdb.COMMAND_RUNNING)

    def invoke(self, arg, from_tty):
        thread = gdb.selected_thread()
        connection = gdb.selected_inferior().connection
        if thread is None or gdb.selected_inferior().pid == 0 or connection is None or connection.type == "core":
            raise gdb.GdbError("ompd next: the program is not running")
        if thread.is_running():
            raise gdb.GdbError("ompd next: the selected thread is running")
        self.runtime_prefix = jompd_bridge().step_entry_points().get("runtimeLibraryPrefix")
        stops = []
        def on_stop(event):
            stops.append(event)
        gdb.events.stop.connect(on_stop)
        quiet = self.Quiet()
        try:
            quiet.begin()
            try:
                self.next(thread, stops)
            except gdb.error as e:
                gdb.write("ompd next: stopped here: %s\n" % e)
        finally:
            quiet.end()
            gdb.events.stop.disconnect(on_stop)
        if gdb.selected_inferior().pid != 0 and gdb.selected_thread() is not None:
            gdb.execute("frame", from_tty)

    def next(self, thread, stops):
        frame = gdb.selected_frame()
        if self.in_runtime(frame):
            gdb.execute("next", to_string=True)  # in the runtime already: gdb's own
            return
        walk = [self.code_stop(frame)]
        del stops[:]
        gdb.execute("next", to_string=True)
        for _ in range(self.MAX_MOVES):
            if not thread.is_valid() or gdb.selected_inferior().pid == 0:
                return  # the program ended
            if gdb.selected_thread() != thread:
                return  # another thread stopped it (a breakpoint, a signal): stay there, as `next` does
            if any(isinstance(event, (gdb.BreakpointEvent, gdb.SignalEvent)) for event in stops):
                return  # a breakpoint of the user's, a signal: theirs
            del stops[:]
            frame = gdb.selected_frame()
            in_runtime = self.in_runtime(frame)
            walk.append(["", 0, "", 0] if in_runtime else self.code_stop(frame))
            move = self.leave_move(walk, in_runtime, in_runtime and self.program_code_below(frame))
            if move == "next":
                gdb.execute("next", to_string=True)
            elif move == "finish":
                try:
                    gdb.execute("finish", to_string=True)
                except gdb.error:
                    return  # the outermost frame
            else:
                return

    def program_code_below(self, frame):
        """Whether a frame of the program's code (with a line, neither the runtime's nor the C library's: a
        worker's stack ends in libc's start_thread) is below {frame}."""
        frame = frame.older()
        for _ in range(64):
            if frame is None:
                return False
            library = gdb.current_progspace().solib_name(frame.pc()) or ""
            c_library = os.path.basename(library).startswith(self.C_LIBRARY_PREFIXES)
            if not c_library and not self.in_runtime(frame):
                return True
            frame = frame.older()
        return False

    @staticmethod
    def leave_move(walk, in_runtime, program_code_below):
        """"next", "finish" or "arrived" at the walk's last stop: the engine's rule (ompd-core's
        RuntimeEntryPoints.leaveMove). Where it cannot answer, the step stops here."""
        try:
            return jompd_bridge().run("leave-move", json.dumps(
                {"walk": walk, "inRuntime": in_runtime, "programCodeBelow": program_code_below})).strip()
        except gdb.GdbError:
            return "arrived"


class JompdInitCommand(JompdSubcommand):
    """Checks that OMPD works on this target and says what it found; starts the program if needed.

Usage: ompd init
The other commands initialise what they need; `ompd init` is there for scripts written for LLVM's plugin
and does what that plugin does. Before `run` it starts the program (`start`: temporary breakpoint 1 at
main) and, if libomp has not yet initialised its OMPD support, runs on to the point where it has (a
temporary breakpoint 2 at libomp's ompd_dll_locations_valid), so that breakpoints set afterwards get the
same numbers as with LLVM's plugin. In a stopped program whose libomp has not initialised OMPD yet (at
main: libomp does so at the first OpenMP construct or call) it says so and arms that breakpoint: the next
`continue` stops once OMPD is ready."""

    # libomp calls this empty function once it has filled in ompd_dll_locations (ompd-specific.cpp,
    # ompd_init): the point from which an OMPD tool can work; LLVM's plugin stops there too.
    READY_FUNCTION = "ompd_dll_locations_valid"

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        inferior = gdb.selected_inferior()
        connection = inferior.connection
        on_core = connection is not None and connection.type == "core"
        if not on_core and inferior.pid == 0:
            if not inferior.progspace.filename:
                raise gdb.GdbError("ompd init: no program: load one (`file PROGRAM`), attach to a process or "
                                   "open a core file")
            gdb.write("jompd: starting the program, to stop once libomp's OMPD support is ready\n")
            gdb.execute("start", from_tty)
            if gdb.selected_inferior().pid == 0:
                raise gdb.GdbError("ompd init: the program ended before main")
            if self.ompd_ready() is False:
                self.arm()
                gdb.execute("continue", from_tty)
                if gdb.selected_inferior().pid == 0:
                    raise gdb.GdbError("ompd init: the program ended without initialising OMPD (no OpenMP "
                                       "construct ran, or its libomp has no OMPD support)")
        elif not on_core and self.ompd_ready() is False:
            gdb.write("jompd: libomp has not initialised its OMPD support yet (it does at the program's first "
                      "OpenMP construct or call); the next `continue` stops once it is ready.\n")
            self.arm()
            return
        gdb.write(jompd_bridge().run("init", arg))

    @staticmethod
    def ompd_ready():
        """True once libomp has published its OMPD library locations, False before, None if gdb cannot tell
        (no such symbol: no libomp, one without OMPD, or no symbols; the engine then says what it finds)."""
        try:
            return int(gdb.parse_and_eval("*(unsigned long *) &ompd_dll_locations")) != 0
        except gdb.error:
            return None

    def arm(self):
        """A visible temporary breakpoint (numbered as LLVM's plugin numbers it), pending until libomp loads."""
        saved = gdb.parameter("breakpoint pending")
        gdb.execute("set breakpoint pending on", to_string=True)
        try:
            gdb.execute("tbreak " + self.READY_FUNCTION)
        finally:
            gdb.execute("set breakpoint pending %s" % {True: "on", False: "off"}.get(saved, "auto"), to_string=True)


class JompdBacktraceFilter:
    """gdb frame filter for `bt` while `ompd bt on`: keeps the frames of the OpenMP tasks' own code and
    drops the runtime's (libomp's, and the thread start-up's), as LLVM's plugin does; each kept frame is
    named `@thread N: FUNCTION` with "#pragma omp parallel" (an implicit task) or "#pragma omp task" (an
    explicit one) after it. Which task a frame belongs to, the engine works out from the tasks' OMPT frames
    (the internal command "frame-owners"), the same marking `ompd bt` prints."""

    NAME = "jompd-ompd-bt"
    PRAGMAS = {"implicit": ' "#pragma omp parallel"', "explicit": ' "#pragma omp task"'}

    def __init__(self):
        self.name = self.NAME
        self.priority = 100
        self.enabled = True

    def filter(self, frame_iter):
        thread = gdb.selected_thread()
        try:
            owners = self.owners()
        except gdb.GdbError as e:
            gdb.write("%s; all frames shown\n" % e)
            return (JompdThreadFrame(frame, thread.num, "") for frame in frame_iter)
        return self.kept(frame_iter, owners, thread.num)

    @staticmethod
    def owners():
        """{frame level: (pc, "task" | "runtime", task kind)} from the engine."""
        owners = {}
        for line in jompd_bridge().run("frame-owners", "").splitlines():
            fields = line.split()
            if len(fields) >= 3:
                owners[int(fields[0])] = (int(fields[1], 16), fields[2], fields[3] if len(fields) > 3 else "")
        return owners

    def kept(self, frame_iter, owners, thread_num):
        shown = 0
        for index, decorator in enumerate(frame_iter):
            frame = decorator.inferior_frame()
            level = frame.level() if hasattr(frame, "level") else index
            owner = owners.get(level)
            if owner is None or owner[0] != frame.pc():
                shown += 1
                yield decorator  # beyond what the engine marked (or not the frame it marked): shown as it is
            elif owner[1] == "task":
                shown += 1
                yield JompdThreadFrame(decorator, thread_num, self.PRAGMAS.get(owner[2], ""))
        if shown == 0:
            # an empty `bt` reads as a broken one: say why (an idle worker, a thread waiting in the runtime)
            gdb.write("jompd: no frame of thread %d runs an OpenMP task's code, all are the runtime's "
                      "(`ompd bt` marks them; `ompd bt off` shows them)\n" % thread_num)


try:
    from gdb.FrameDecorator import FrameDecorator as _JompdFrameDecorator
except ImportError:  # a gdb without Python frame filters: `ompd bt on` says so
    _JompdFrameDecorator = None

if _JompdFrameDecorator is not None:
    class JompdThreadFrame(_JompdFrameDecorator):
        """A frame shown as LLVM's plugin shows it: `@thread N: FUNCTION` and the task's pragma."""

        def __init__(self, base, thread_num, pragma):
            super().__init__(base)
            self.thread_num = thread_num
            self.pragma = pragma

        def function(self):
            name = super().function()
            if not isinstance(name, str):
                return name  # no symbol: gdb prints the address
            return "@thread %d: %s%s" % (self.thread_num, name, self.pragma)


class JompdBacktraceCommand(JompdSubcommand):
    """Prints the selected thread's backtrace marked by OpenMP task and region, or filters gdb's `bt`.

Usage: ompd bt [N]      the marked backtrace; N: at most N frames (default 256)
       ompd bt on       gdb's own `bt` shows only the OpenMP program's frames (a frame filter, as with
                        LLVM's plugin): the tasks' code, runtime frames hidden
       ompd bt off      gdb's `bt` shows every frame again"""

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        words = arg.split()
        if not words or words[0] not in ("on", "off"):
            gdb.write(jompd_bridge().run("bt", arg))
            return
        if words[0] == "off":
            gdb.frame_filters.pop(JompdBacktraceFilter.NAME, None)
            gdb.write('Disabled filter for "bt" output successfully.\n')
            return
        if _JompdFrameDecorator is None:
            raise gdb.GdbError("ompd bt on: this gdb has no Python frame filters (gdb.FrameDecorator)")
        if words[1:] == ["continued"]:
            gdb.write('jompd: "on continued" (following a worker\'s tasks into the primary thread\'s stack) '
                      'is not supported; filtering as "on".\n')
        elif len(words) > 1:
            raise gdb.GdbError("usage: ompd bt on|off  (or ompd bt [N] for the marked backtrace)")
        gdb.frame_filters[JompdBacktraceFilter.NAME] = JompdBacktraceFilter()
        gdb.write('Enabled filter for "bt" output successfully.\n')


class JompdRunCommand(gdb.Command):
    """Runs the program, like `run`, on jompd's OMPD-enabled libomp.

Usage: ompd run [--recorder] [ARGS]
Programs built with gcc or gfortran -fopenmp run on GCC's libgomp, which has no OpenMP debugging
interface; LLVM's libomp runs them unchanged. This sets, in the environment gdb starts the program with,
what `jompd run` sets (see `show environment`): LD_LIBRARY_PATH first names a directory where libomp.so.5
and libgomp.so.1 are jompd's libomp, and OMP_DEBUG=enabled. Then it runs the program with ARGS.
By hand, the same: `set environment NAME=VALUE` for each line of
`jompd run --print-environment -- PROGRAM`, then `run`. The runtime is built on first use.
With --recorder the program also runs with the jompd-recorder (OMP_TOOL_LIBRARIES), an OMPT tool that
records what OpenMP does: `ompd tree` then shows each thread's recent events and why it is where it is."""

    def __init__(self):
        super().__init__("ompd run", gdb.COMMAND_RUNNING, gdb.COMPLETE_FILENAME)

    def invoke(self, arg, from_tty):
        self.dont_repeat()
        program = gdb.current_progspace().filename
        if not program:
            raise gdb.GdbError("ompd run: no program loaded (file PROGRAM first)")
        launcher = os.path.join(os.path.dirname(JompdBridge.find_engine()), "bin", "jompd")
        if not os.access(launcher, os.X_OK):
            raise gdb.GdbError("ompd run: no jompd launcher at %s" % launcher)
        options = []
        if arg.split()[:1] == ["--recorder"]:
            options.append("--recorder")
            arg = arg.strip()[len("--recorder"):].strip()
        # jompd run decides the environment (jompd's core, the same for every door); its progress
        # (a first-use build of the runtime or the recorder) goes to gdb's console.
        result = subprocess.run([launcher, "run", "--print-environment"] + options + ["--", program],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if result.stderr:
            gdb.write(result.stderr)
        if result.returncode != 0:
            raise gdb.GdbError("ompd run: %s cannot run on jompd's libomp (see above)" % program)
        for line in result.stdout.splitlines():
            if "=" in line:
                gdb.execute("set environment %s" % line, to_string=True)
                gdb.write("jompd: %s\n" % line)
        gdb.execute("run %s" % arg, from_tty=from_tty)


_JOMPD_SUBCOMMANDS = [
    ("threads", "Lists every OpenMP thread: gdb thread, LWP, gtid, OpenMP thread number, level, team size, "
                "state.\nUsage: ompd threads\nThe selected thread is marked with *; threads outside the OpenMP "
                "runtime are named at the end."),
    ("parallel", "Shows the selected thread's parallel regions, innermost first, each with its team.\n"
                 "Usage: ompd parallel"),
    ("icvs", "Shows the internal control variables (ICVs) seen from the selected thread.\n"
             "Usage: ompd icvs [address_space|thread|parallel|task|ICV-NAME]\n"
             "Without an argument: every scope (the process, the thread, its innermost region, its task).",
     ("address_space", "thread", "parallel", "task", "all")),
    ("tasks", "Shows the selected thread's task chain: its current task and the tasks that generated it.\n"
              "Usage: ompd tasks"),
    ("tree", "Shows the whole process: the tree of parallel regions, each team's threads and their tasks.\n"
             "Usage: ompd tree [all] [history N|all]\nAlike threads of a team are grouped unless `all` is given.\n"
             "With the jompd-recorder: each thread's last 8 recorded events, or the last N, or every one kept."),
    ("stacks", "Shows where every OpenMP thread is: the threads' native stacks merged by common call path\n"
               "(parallel stacks), runs of libomp's frames folded to what they do, each end with its threads.\n"
               "Usage: ompd stacks\njompd unwinds the stacks itself (CFI, frame pointers), from the core's registers or,\n"
               "in a process gdb holds, the registers gdb reads."),
    ("diagnose", "Says why the threads wait: per team who reached the barrier and who did not (and where),\n"
                 "who waits for which lock or critical section and who holds it (with the jompd-recorder),\n"
                 "deadlocks; each finding with its evidence (OMPD states, stacks).\nUsage: ompd diagnose"),
]


def jompd_register():
    JompdPrefixCommand()
    JompdStepCommand()
    JompdNextCommand()
    JompdInitCommand("init", JompdInitCommand.__doc__)
    JompdBacktraceCommand("bt", JompdBacktraceCommand.__doc__, ("on", "off"))
    JompdRunCommand()
    for entry in _JOMPD_SUBCOMMANDS:
        JompdSubcommand(*entry)
    JompdJsonCommand("json", "Prints the whole OpenMP picture as JSON (schema jompd-inspect/1, as "
                             "`jompd inspect --json`).\nUsage: ompd json [FILE]\nWith FILE, writes it there.")
    jompd_bridge()


jompd_register()
