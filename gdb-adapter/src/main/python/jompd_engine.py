# jompd_engine.py: the debugger's end of the jompd engine's pipe (protocol "jompd-gdb/1"), one file for gdb's
# jompd.py and LLDB's jompd_lldb.py: which Java runs the engine (the distribution's lib/jompd-java.sh), its
# class-data archive only in a cache directory this user alone can write, starting it in a session of its own,
# and one JSON object per line each way. It lives in the distribution's lib/, beside the engine's jars, and each
# door loads it from the lib/ it found the engine in (so a door script copied alone still says where the engine
# is). Standard library only; it knows no debugger: each door says how to report a failure.

import glob
import json
import os
import select
import shutil
import subprocess
import tempfile
import time

PROTOCOL = "jompd-gdb/1"
ENGINE_JAR = "gdb-adapter.jar"
HELLO_SECONDS = 60


class EngineFailure(Exception):
    """The engine cannot start, stopped, or did not answer in time: the message for the user (no "jompd: ")."""


def why_not_private(real, leaf, debugger):
    """Why `real` (resolved) is not this user's alone, or None: `leaf` owned by the effective uid and not writable
    by its group or others; every directory above it root's or this user's, not writable by others unless sticky."""
    me = os.geteuid()
    path = real
    while True:
        st = os.lstat(path)
        if path == real and leaf:
            if st.st_uid != me:
                return "%s belongs to uid %d, not to uid %d that %s runs as" % (path, st.st_uid, me, debugger)
            if st.st_mode & 0o022:
                return "%s can be written by its group or others (mode %04o)" % (path, st.st_mode & 0o7777)
        else:
            if st.st_uid not in (0, me):
                return "its directory %s belongs to uid %d, who can replace what it holds" % (path, st.st_uid)
            if st.st_mode & 0o022 and not st.st_mode & 0o1000:
                return "its directory %s can be written by its group or others (mode %04o)" % (path, st.st_mode & 0o7777)
        if path == "/":
            return None
        path = os.path.dirname(path)


_said_cache = False


def private_directory(directory, debugger, say):
    """`directory` resolved when it is this user's alone (made 0700 when missing, under directories that pass), else
    None, said once through `say` (the debugger's stderr): the engine's class archive is code the JVM runs, and under `sudo -E` (the user's
    HOME) or a shared XDG_CACHE_HOME another user could write it."""
    global _said_cache
    real = os.path.realpath(directory)
    existing = real
    while not os.path.exists(existing):
        existing = os.path.dirname(existing)
    why = why_not_private(existing, existing == real, debugger)
    if why is None and existing != real:
        os.makedirs(real, mode=0o700, exist_ok=True)
        why = why_not_private(real, True, debugger)
    if why is None:
        return real
    if not _said_cache:
        _said_cache = True
        say("jompd: not using the cache directory %s: %s; the engine starts without its class archive\n" % (real, why))
    return None


def find_java(lib):
    """The Java to run the engine on, by the rule every door shares: the distribution's lib/jompd-java.sh says."""
    script = os.path.join(lib, "jompd-java.sh")
    bash = "/bin/bash" if os.path.isfile("/bin/bash") else (shutil.which("bash") or "bash")
    try:
        answer = subprocess.run([bash, script], capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.SubprocessError) as e:
        raise EngineFailure("cannot ask %s which Java to run: %s" % (script, e))
    found = answer.stdout.strip().splitlines()
    if answer.returncode != 0 or not found:
        raise EngineFailure(" ".join(answer.stderr.split()) or "%s found no Java" % script)
    return found[-1]


class EnginePipe:
    """One running engine: started by start(lib), then send() and receive() one JSON object each.
    `debugger` names the door (in messages); `say(text)` writes a note on the debugger's stderr (a cache not used,
    a line from the engine that is no protocol message)."""

    def __init__(self, debugger, say):
        self.debugger = debugger
        self.say = say
        self.proc = None
        self.log = None
        self.pending = []
        self.hello = {}

    def running(self):
        return self.proc is not None and self.proc.poll() is None

    def start(self, lib):
        java = find_java(lib)
        # An interactive engine, as the jompd launcher runs the command line: C1 only, a serial heap, no
        # native-access warning. The JVM's own messages and its log's warnings go to stdout by default, the
        # pipe this file reads JSON from: to stderr (the engine's log file) instead.
        options = ["-XX:+DisplayVMOutputToStderr", "-Xlog:disable", "-Xlog:all=warning:stderr",
                   "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-Xshare:auto", "--enable-native-access=ALL-UNNAMED"]
        cache = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "jompd")
        if not os.environ.get("JOMPD_NO_CDS"):
            try:
                cache = private_directory(cache, self.debugger, self.say)
                if cache:
                    # One class-data archive per engine build (every door runs the same jars), made by the JVM on
                    # first use: start-up time.
                    stamp = int(os.stat(os.path.join(lib, ENGINE_JAR)).st_mtime)
                    archive = os.path.join(cache, "jompd-gdb-%d.jsa" % stamp)
                    if not os.path.exists(archive):
                        # Archives of other engine builds, made over an hour ago: gone.
                        for stale in glob.glob(os.path.join(cache, "jompd-gdb-*.jsa")):
                            if time.time() - os.stat(stale).st_mtime > 3600:
                                os.remove(stale)
                    options += ["-XX:SharedArchiveFile=" + archive, "-XX:+AutoCreateSharedArchive",
                                "-Xlog:cds=off:stderr", "-Xlog:cds+dynamic=off:stderr"]
            except OSError:
                pass
        options += os.environ.get("JOMPD_JAVA_OPTIONS", "").split()
        self.log = tempfile.TemporaryFile(prefix="jompd-engine-")
        command = [java] + options + ["-cp", os.path.join(lib, "*"), "dev.jompd.gdb.Engine"]
        try:
            # A session of its own: the debugger's Ctrl-C must not reach the engine.
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                         stderr=self.log, start_new_session=True, close_fds=True)
        except OSError as e:
            raise EngineFailure("cannot start the jompd engine with %s: %s" % (java, e))
        self.pending = []
        hello = self.receive(HELLO_SECONDS)
        if hello.get("hello") != PROTOCOL:
            self.stop()
            raise EngineFailure("the jompd engine in %s speaks %r, not %s: reinstall jompd"
                                % (lib, hello.get("hello"), PROTOCOL))
        self.hello = hello

    def stop(self):
        proc, self.proc = self.proc, None
        if proc is not None:
            try:
                proc.stdin.close()
            except OSError:
                pass
            try:
                proc.wait(timeout=2)
            except Exception:
                proc.kill()

    def log_tail(self):
        if self.log is None:
            return ""
        try:
            self.log.seek(0)
            lines = self.log.read().decode("utf-8", "replace").strip().splitlines()
            return " | ".join(lines[-3:])
        except OSError:
            return ""

    def send(self, message):
        data = (json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8")
        try:
            self.proc.stdin.write(data)
            self.proc.stdin.flush()
        except (OSError, ValueError):
            self.died()

    def receive(self, timeout=None):
        """The next line from the engine that is a JSON object. Any other line (a JVM warning that reached
        stdout, a library's stray print) is skipped with a note: it is not the engine's."""
        fd = self.proc.stdout.fileno()
        while True:
            # Only the newest chunk can hold a newline: older ones were searched when they arrived.
            newline = self.pending[-1].find(b"\n") if self.pending else -1
            if newline >= 0:
                last = self.pending[-1]
                line = b"".join(self.pending[:-1]) + last[:newline]
                rest = last[newline + 1:]
                self.pending = [rest] if rest else []
                text = line.decode("utf-8", "replace")
                try:
                    message = json.loads(text)
                except ValueError:
                    message = None
                if isinstance(message, dict):
                    return message
                self.say("jompd: skipped a line from the engine that is not a protocol message: %s\n"
                           % (text if len(text) <= 200 else text[:200] + "..."))
                continue
            ready, _, _ = select.select([fd], [], [], timeout)
            if not ready:
                self.stop()
                raise EngineFailure("the engine did not answer within %d s; it restarts at the next command" % timeout)
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                self.died()
            self.pending.append(chunk)

    def died(self):
        tail = self.log_tail()
        self.stop()
        raise EngineFailure("the engine stopped unexpectedly%s; it restarts at the next command"
                            % ((": " + tail) if tail else ""))

