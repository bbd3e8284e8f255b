# dump_reference.py: asks LLVM's reference libompd, through its own gdb plugin, everything it answers
# about a stopped OpenMP program, and writes one TSV record per answer.
#
#   JOMPD_REF_PLUGIN=<prefix>/share/gdb/python JOMPD_REF_OUT=out.tsv \
#       gdb -batch -nx -x dump_reference.py <executable> <core>
#
# Environment:
#   JOMPD_REF_PLUGIN  the directory holding the plugin package `ompd` (ompd.py, ompdModule.so, ...)
#   JOMPD_REF_OUT     the TSV file (appended to; see "Crashes" below)
#   JOMPD_REF_DEPTH   how many enclosing regions / generating tasks to follow per thread (default 8)
#   JOMPD_REF_CRASH_QUERY  test hook: gdb kills itself with SIGSEGV when a query of this name starts (to
#                     test the crash handling below)
#
# Initialisation is the plugin's own: `ompd init` (ompd.py) reads ompd_dll_locations from the target,
# loads libompd.so with ompdModule.ompd_open and calls ompd_initialize + ompd_process_initialize with
# the plugin's callbacks (ompd_callbacks.py: memory is read through gdb, one byte per gdb value).
# Threads are found the way the plugin finds them: each gdb thread's LWP goes to
# ompdModule.get_thread_handle (ompd_get_thread_handle with an LWP id). The queries themselves call the
# same, already loaded libompd directly through ctypes, because the plugin's wrappers (ompdModule.c)
# drop the return code (they print it and answer None); the handles are the plugin's capsules.
#
# Records (tab separated; \\, \t and \n escaped in values):
#   <scope> <subject> <query> <rc> <value>
#     scope    process | thread | parallel | task
#     subject  "-" for the process; lwp=<LWP> for a thread; lwp=<LWP>:p<d> for the d-th enclosing
#              region of that thread's current region (p0 = current); lwp=<LWP>:t<d> for the d-th
#              generating task of its current task (t0 = current)
#     query    handle | thread_id.pthread | state | wait_id | tool_data.value | tool_data.ptr |
#              icv:<name> | icv_string:<name> | function | frame.exit | frame.exit_flags |
#              frame.enter | frame.enter_flags | omp_version | omp_version_string | api_version |
#              version_string | control_vars | icv_enum:<id> | state_enum:<code>
#     rc       the ompd_rc_t number (0 ok), or "crash" when gdb died inside the query
#     value    the answer when rc is 0 (for icv: also with rc 11 incomplete, which still sets it);
#              integers in decimal, words signed, addresses unsigned; frame flags the reference did
#              not write read "unset"
#   ?  <scope> <subject> <query>          written (and flushed) just before the query runs
#   #  <name> <value...>                  facts about the run: libompd, init time, reads, time
#
# Crashes: the reference is known to kill gdb (a segmentation fault in libompd) on some programs. Every
# record reaches the file before the next query starts. When the script starts on a file that already
# holds records, it skips every query answered there; a query that was started ("?") but never
# answered is where gdb died: it is recorded with rc "crash" and skipped. So running the script again
# until it writes "#\tcomplete" collects everything the reference answers, losing only the crashing
# queries themselves.

import ctypes
import os
import signal
import sys
import time
import traceback

import gdb

PLUGIN = os.environ["JOMPD_REF_PLUGIN"]
OUT = os.environ["JOMPD_REF_OUT"]
DEPTH = int(os.environ.get("JOMPD_REF_DEPTH", "8"))
CRASH_QUERY = os.environ.get("JOMPD_REF_CRASH_QUERY")

SCOPE_ADDRESS_SPACE, SCOPE_THREAD, SCOPE_PARALLEL, SCOPE_TASK = 2, 3, 4, 6
RC_OK, RC_UNAVAILABLE, RC_INCOMPLETE = 0, 1, 11
THREAD_ID_PTHREAD = 0
UNSET_FLAG = -0x5EEDF1A6  # pre-filled into frame flags to see whether the reference wrote them


def escape(text):
    return str(text).replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


# ---------------------------------------------------------------- output, resumable after a crash

done = set()
started = []
if os.path.exists(OUT):
    with open(OUT, "r", encoding="utf-8", errors="replace") as previous:
        for line in previous.read().split("\n"):
            fields = line.split("\t")
            if len(fields) >= 4 and fields[0] == "?":
                started.append(tuple(fields[1:4]))
            elif len(fields) >= 4 and fields[0] not in ("#", "?"):
                done.add(tuple(fields[0:3]))
crashed = [key for key in started if key not in done]

out_fd = os.open(OUT, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)


def emit(*fields):
    # One write per record, unbuffered: what is written survives gdb dying right after.
    os.write(out_fd, ("\t".join(escape(f) for f in fields) + "\n").encode("utf-8"))


for key in crashed:
    emit(key[0], key[1], key[2], "crash", "")
    done.add(key)
emit("#", "run", str(os.getpid()), "resumed" if started else "fresh")

# ---------------------------------------------------------------- counting the plugin's callbacks

sys.path.insert(0, os.path.join(PLUGIN, "ompd"))
import ompd_callbacks  # noqa: E402  (the module whose functions ompdModule.so calls back)

stats = {"read_calls": 0, "read_bytes": 0, "read_string_calls": 0, "sym_addr_calls": 0,
         "thread_context_calls": 0}
seconds = {"_read": 0.0, "_read_string": 0.0, "_sym_addr": 0.0, "_thread_context": 0.0}


def counted(name, account):
    original = getattr(ompd_callbacks, name)

    def wrapper(*args):
        account(args)
        begin = time.perf_counter()
        try:
            return original(*args)
        finally:
            seconds[name] += time.perf_counter() - begin
    wrapper.__name__ = name
    setattr(ompd_callbacks, name, wrapper)


def count(key, amount=1):
    stats[key] += amount


# ompdModule.so looks each callback up by name on this module at every call, so wrapping works.
counted("_read", lambda a: (count("read_calls"), count("read_bytes", int(a[1]))))
counted("_read_string", lambda a: count("read_string_calls"))
counted("_sym_addr", lambda a: count("sym_addr_calls"))
counted("_thread_context", lambda a: count("thread_context_calls"))
# ompdModule prints its error messages through gdb's printf; keep them out of the way.
ompd_callbacks._print = lambda *args: None

import ompd  # noqa: E402  (the plugin's ompd.py: its commands and the global addr_space)
import ompdModule  # noqa: E402

# ---------------------------------------------------------------- initialisation: `ompd init`

INIT = ("process", "-", "init")
if INIT in crashed:
    emit("#", "init_failed", "gdb crashed inside ompd init")
    emit("#", "complete")
    os.close(out_fd)
    gdb.execute("quit")
if INIT not in done:
    emit("?", *INIT)
init_begin = time.perf_counter()
ompd.main()  # registers the plugin's commands, as its __init__.py does
gdb.execute("ompd init", to_string=True)
init_seconds = time.perf_counter() - init_begin
if ompd.addr_space is None or not ompd.addr_space.addr_space:
    emit("#", "init_failed", "ompd init did not produce an address space handle")
    emit("#", "complete")
    os.close(out_fd)
    gdb.execute("quit")
if INIT not in done:
    emit(INIT[0], INIT[1], INIT[2], "0", "")
    done.add(INIT)

loaded = None
with open("/proc/self/maps") as maps:
    for line in maps:
        if line.rstrip().endswith("/libompd.so"):
            loaded = line.split()[-1]
            break
emit("#", "libompd", loaded or "?")
emit("#", "init_seconds", "%.6f" % init_seconds)
# The instance ompd_open loaded. PyDLL, not CDLL: libompd calls back into Python (the plugin's
# callbacks), so the GIL must stay held during the call.
lib = ctypes.PyDLL(loaded, mode=os.RTLD_NOLOAD | os.RTLD_LAZY)

# ---------------------------------------------------------------- ctypes view of the OMPD API

c_word = ctypes.c_int64
VP = ctypes.c_void_p


class Address(ctypes.Structure):
    _fields_ = [("segment", ctypes.c_uint64), ("address", ctypes.c_uint64)]


class FrameInfo(ctypes.Structure):
    _fields_ = [("frame_address", Address), ("frame_flag", ctypes.c_int64)]


def fn(name, *argtypes):
    f = getattr(lib, name)
    f.restype = ctypes.c_int
    f.argtypes = list(argtypes)
    return f


P = ctypes.POINTER
get_omp_version = fn("ompd_get_omp_version", VP, P(c_word))
get_omp_version_string = fn("ompd_get_omp_version_string", VP, P(ctypes.c_char_p))
get_api_version = fn("ompd_get_api_version", P(c_word))
get_version_string = fn("ompd_get_version_string", P(ctypes.c_char_p))
get_display_control_vars = fn("ompd_get_display_control_vars", VP, P(P(ctypes.c_char_p)))
enumerate_icvs = fn("ompd_enumerate_icvs", VP, ctypes.c_uint64, P(ctypes.c_uint64), P(ctypes.c_char_p),
                    P(ctypes.c_int), P(ctypes.c_int))
enumerate_states = fn("ompd_enumerate_states", VP, c_word, P(c_word), P(ctypes.c_char_p), P(c_word))
get_icv_from_scope = fn("ompd_get_icv_from_scope", VP, ctypes.c_int, ctypes.c_uint64, P(c_word))
get_icv_string_from_scope = fn("ompd_get_icv_string_from_scope", VP, ctypes.c_int, ctypes.c_uint64,
                               P(ctypes.c_char_p))
get_thread_id = fn("ompd_get_thread_id", VP, ctypes.c_uint64, ctypes.c_uint64, VP)
get_state = fn("ompd_get_state", VP, P(c_word), P(ctypes.c_uint64))
get_tool_data = fn("ompd_get_tool_data", VP, ctypes.c_int, P(c_word), P(Address))
get_curr_parallel_handle = fn("ompd_get_curr_parallel_handle", VP, P(VP))
get_enclosing_parallel_handle = fn("ompd_get_enclosing_parallel_handle", VP, P(VP))
get_curr_task_handle = fn("ompd_get_curr_task_handle", VP, P(VP))
get_generating_task_handle = fn("ompd_get_generating_task_handle", VP, P(VP))
get_task_function = fn("ompd_get_task_function", VP, P(Address))
get_task_frame = fn("ompd_get_task_frame", VP, P(FrameInfo), P(FrameInfo))

capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
capsule_pointer.restype = ctypes.c_void_p
capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]

# ---------------------------------------------------------------- running queries

query_seconds = [0.0]


class Skip(Exception):
    pass


def run(scope, subject, query, call, needed=False):
    """Runs call() -> (rc, value) once: announces it, records the answer. A query already answered in
    an earlier run is skipped unless its result is needed (handles); one that crashed is never rerun."""
    key = (scope, subject, query)
    if key in done and not needed:
        return None
    if key in crashed:
        raise Skip()
    fresh = key not in done
    if fresh:
        emit("?", scope, subject, query)
        if query == CRASH_QUERY:
            os.kill(os.getpid(), signal.SIGSEGV)
    begin = time.perf_counter()
    rc, value = call()
    query_seconds[0] += time.perf_counter() - begin
    if fresh:
        emit(scope, subject, query, str(rc), "" if value is None else value)
        done.add(key)
    return rc, value


def icv_queries(handle, scope_name, subject, scope_code):
    for icv_id, (name, icv_scope) in sorted(icvs.items()):
        if icv_scope != scope_code:
            continue

        def as_int():
            value = c_word(0)
            rc = get_icv_from_scope(handle, scope_code, icv_id, ctypes.byref(value))
            return rc, (str(value.value) if rc in (RC_OK, RC_INCOMPLETE) else None)

        def as_string():
            text = ctypes.c_char_p()
            rc = get_icv_string_from_scope(handle, scope_code, icv_id, ctypes.byref(text))
            return rc, (text.value.decode("utf-8", "replace") if rc == RC_OK and text.value is not None else None)

        attempt(lambda: run(scope_name, subject, "icv:" + name, as_int))
        attempt(lambda: run(scope_name, subject, "icv_string:" + name, as_string))


def attempt(action):
    try:
        return action()
    except Skip:
        return None


def tool_data(handle, scope_name, subject, scope_code):
    holder = {}

    def call():
        value, pointer = c_word(0), Address()
        rc = get_tool_data(handle, scope_code, ctypes.byref(value), ctypes.byref(pointer))
        holder["v"] = (value.value, pointer.address)
        return rc, (str(value.value) if rc == RC_OK else None)

    result = attempt(lambda: run(scope_name, subject, "tool_data.value", call))
    if result is not None and result[0] == RC_OK:
        run(scope_name, subject, "tool_data.ptr", lambda: (RC_OK, str(holder["v"][1])))


def handle_query(scope_name, subject, call):
    """Gets a handle (always, even when recorded before: later queries need it). None when failed."""
    holder = {}

    def wrapped():
        rc, handle = call()
        holder["h"] = handle if rc == RC_OK else None
        return rc, None

    result = attempt(lambda: run(scope_name, subject, "handle", wrapped, needed=True))
    return holder.get("h") if result is not None else None


def new_handle(function, source):
    out = VP()
    rc = function(source, ctypes.byref(out))
    return rc, out.value


# ---------------------------------------------------------------- the dump

started_at = time.perf_counter()
address_space = capsule_pointer(ompd.addr_space.addr_space, b"AddressSpace")

# The ICVs and states the reference enumerates (no memory reads).
icvs = {}
current, more = 0, 1
while more:
    next_id, name, scope, more_flag = ctypes.c_uint64(), ctypes.c_char_p(), ctypes.c_int(), ctypes.c_int()
    rc = enumerate_icvs(address_space, current, ctypes.byref(next_id), ctypes.byref(name), ctypes.byref(scope),
                        ctypes.byref(more_flag))
    if rc != RC_OK:
        break
    icvs[next_id.value] = (name.value.decode(), scope.value)
    current, more = next_id.value, more_flag.value
for icv_id, (name, scope) in sorted(icvs.items()):
    run("process", "-", "icv_enum:%d" % icv_id, lambda: (RC_OK, "%s/%d" % (name, scope)))
state, more = 0x102, 1  # the plugin starts from ompt_state_undefined, as its enumerate_states does
first = True
while more:
    next_state, state_name, more_flag = c_word(), ctypes.c_char_p(), c_word()
    rc = enumerate_states(address_space, state, ctypes.byref(next_state), ctypes.byref(state_name),
                          ctypes.byref(more_flag))
    if rc != RC_OK:
        break
    run("process", "-", "state_enum:%d" % next_state.value, lambda: (RC_OK, state_name.value.decode()))
    state, more = next_state.value, more_flag.value


def process_queries():
    def omp_version():
        value = c_word()
        rc = get_omp_version(address_space, ctypes.byref(value))
        return rc, (str(value.value) if rc == RC_OK else None)

    def omp_version_string():
        text = ctypes.c_char_p()
        rc = get_omp_version_string(address_space, ctypes.byref(text))
        return rc, (text.value.decode() if rc == RC_OK else None)

    def api_version():
        value = c_word()
        rc = get_api_version(ctypes.byref(value))
        return rc, (str(value.value) if rc == RC_OK else None)

    def version_string():
        text = ctypes.c_char_p()
        rc = get_version_string(ctypes.byref(text))
        return rc, (text.value.decode() if rc == RC_OK else None)

    def control_vars():
        array = P(ctypes.c_char_p)()
        rc = get_display_control_vars(address_space, ctypes.byref(array))
        if rc != RC_OK:
            return rc, None
        lines = []
        i = 0
        while array[i] is not None:
            lines.append(array[i].decode("utf-8", "replace"))
            i += 1
        return rc, "\n".join(lines)

    attempt(lambda: run("process", "-", "omp_version", omp_version))
    attempt(lambda: run("process", "-", "omp_version_string", omp_version_string))
    attempt(lambda: run("process", "-", "api_version", api_version))
    attempt(lambda: run("process", "-", "version_string", version_string))
    attempt(lambda: run("process", "-", "control_vars", control_vars))
    icv_queries(address_space, "process", "-", SCOPE_ADDRESS_SPACE)


def thread_queries(lwp):
    subject = "lwp=%d" % lwp
    capsule_holder = {}

    def thread_handle():
        # The plugin's way: ompdModule.get_thread_handle(lwp, address space) -> capsule, -1 (unavailable)
        # or another rc.
        capsule = ompdModule.get_thread_handle(lwp, ompd.addr_space.addr_space)
        if isinstance(capsule, int):
            return (RC_UNAVAILABLE if capsule == -1 else capsule), None
        capsule_holder["c"] = capsule  # keeps the handle alive
        return RC_OK, capsule_pointer(capsule, b"ThreadHandle")

    thread = handle_query("thread", subject, thread_handle)
    if thread is None:
        return

    def pthread():
        value = ctypes.c_uint64()
        rc = get_thread_id(thread, THREAD_ID_PTHREAD, 8, ctypes.byref(value))
        return rc, (str(value.value) if rc == RC_OK else None)

    attempt(lambda: run("thread", subject, "thread_id.pthread", pthread))

    state_holder = {}

    def state():
        value, wait = c_word(), ctypes.c_uint64()
        rc = get_state(thread, ctypes.byref(value), ctypes.byref(wait))
        state_holder["w"] = wait.value
        return rc, (str(value.value) if rc == RC_OK else None)

    result = attempt(lambda: run("thread", subject, "state", state))
    if result is not None and result[0] == RC_OK and "w" in state_holder:
        run("thread", subject, "wait_id", lambda: (RC_OK, str(state_holder["w"])))
    tool_data(thread, "thread", subject, SCOPE_THREAD)
    icv_queries(thread, "thread", subject, SCOPE_THREAD)

    # The current region and the regions enclosing it.
    parallel = handle_query("parallel", subject + ":p0", lambda: new_handle(get_curr_parallel_handle, thread))
    for depth in range(DEPTH):
        if parallel is None:
            break
        region = "%s:p%d" % (subject, depth)
        icv_queries(parallel, "parallel", region, SCOPE_PARALLEL)
        tool_data(parallel, "parallel", region, SCOPE_PARALLEL)
        source = parallel
        parallel = handle_query("parallel", "%s:p%d" % (subject, depth + 1),
                                lambda: new_handle(get_enclosing_parallel_handle, source))

    # The current task and the tasks that generated it.
    task = handle_query("task", subject + ":t0", lambda: new_handle(get_curr_task_handle, thread))
    for depth in range(DEPTH):
        if task is None:
            break
        name = "%s:t%d" % (subject, depth)
        icv_queries(task, "task", name, SCOPE_TASK)
        tool_data(task, "task", name, SCOPE_TASK)

        def function():
            address = Address()
            rc = get_task_function(task, ctypes.byref(address))
            return rc, (str(address.address) if rc == RC_OK else None)

        attempt(lambda: run("task", name, "function", function))
        frames = {}

        def frame():
            exit_frame, enter_frame = FrameInfo(), FrameInfo()
            exit_frame.frame_flag = UNSET_FLAG
            enter_frame.frame_flag = UNSET_FLAG
            rc = get_task_frame(task, ctypes.byref(exit_frame), ctypes.byref(enter_frame))
            frames["f"] = (exit_frame, enter_frame)
            return rc, (str(exit_frame.frame_address.address) if rc == RC_OK else None)

        result = attempt(lambda: run("task", name, "frame.exit", frame))
        if result is not None and result[0] == RC_OK and "f" in frames:
            exit_frame, enter_frame = frames["f"]
            flag = lambda f: "unset" if f.frame_flag == UNSET_FLAG else str(f.frame_flag)
            run("task", name, "frame.exit_flags", lambda: (RC_OK, flag(exit_frame)))
            run("task", name, "frame.enter", lambda: (RC_OK, str(enter_frame.frame_address.address)))
            run("task", name, "frame.enter_flags", lambda: (RC_OK, flag(enter_frame)))
        source = task
        task = handle_query("task", "%s:t%d" % (subject, depth + 1),
                            lambda: new_handle(get_generating_task_handle, source))


try:
    process_queries()
    threads = sorted(gdb.selected_inferior().threads(), key=lambda t: t.num)
    emit("#", "gdb_threads", str(len(threads)))
    for inferior_thread in threads:
        thread_queries(inferior_thread.ptid[1])
except Exception:
    emit("#", "script_error", traceback.format_exc())

emit("#", "query_seconds", "%.6f" % query_seconds[0])
emit("#", "dump_seconds", "%.6f" % (time.perf_counter() - started_at))
for name in ("read_calls", "read_bytes", "read_string_calls", "sym_addr_calls", "thread_context_calls"):
    emit("#", name, str(stats[name]))
emit("#", "callback_seconds", "%.6f" % sum(seconds.values()))
for name, spent in seconds.items():
    emit("#", name.lstrip("_") + "_seconds", "%.6f" % spent)
emit("#", "complete")
os.close(out_fd)
