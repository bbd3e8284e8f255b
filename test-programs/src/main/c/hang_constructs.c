/*
 * hang_constructs.c [CONSTRUCT [WHERE [N]]] -- a matrix of hangs: threads blocked for good in each OpenMP
 * construct that can wait, each thread's wait stated in the facts (a hang fixture: see FIXTURES.md,
 * "Hang fixtures").
 *
 * One thread of the case team (the straggler, or the holder of a critical section or lock) blocks for
 * good in user code: block_for_good(), a read() from a pipe nobody writes. The others block in CONSTRUCT:
 *   barrier          an explicit "#pragma omp barrier"; straggler thread N-1
 *   for              the implicit barrier of "#pragma omp for schedule(static, 1)" (no nowait); thread N-1
 *                    blocks in its iteration N-1
 *   sections         the implicit barrier of "#pragma omp sections" (3 sections, N must be 3); the thread
 *                    that runs the last section blocks in it (each section waits until all have started, so
 *                    each thread runs one)
 *   single           the implicit barrier of "#pragma omp single"; thread N-1 takes the single and blocks in it
 *   parallel         the implicit barrier at the end of the case team's parallel region; thread N-1
 *   taskwait         thread 0 creates child task C, blocked in user code, and waits for it in
 *                    "#pragma omp taskwait"; threads 1..N-1 wait at an explicit barrier, where one of them
 *                    runs C (role runs_task)
 *   taskgroup        the same with the end of a "#pragma omp taskgroup" around C's creation
 *   ordered          "#pragma omp ordered" of a "for ordered schedule(static, 1)" loop: thread 0 blocks in
 *                    iteration 0 before its ordered region, threads 1..N-1 wait in theirs
 *   critical         "#pragma omp critical": thread N-1 holds it (another critical construct, same lock)
 *   critical_named   the same with "critical(big)"
 *   lock, nest_lock  omp_set_lock / omp_set_nest_lock of one omp_lock_t / omp_nest_lock_t thread N-1 holds
 * WHERE:
 *   construct  the case team is a parallel region of N threads (k = thread number)
 *   task       (taskwait, taskgroup, critical, critical_named, lock, nest_lock) a task waits in CONSTRUCT:
 *              one thread creates task T in a "#pragma omp single", the team goes to the single's implicit
 *              barrier, and the thread that takes T there runs it (role runs_task): T waits in CONSTRUCT.
 *              taskwait/taskgroup: T's child C is blocked in user code, run by another thread from the
 *              barrier (runs_task too). critical/locks: thread N-1 holds the section or lock and does not
 *              come to the single
 *   nested     the case team is the inner region (N threads) of outer thread 0 of an outer region of 2
 *              (max-active-levels 2); outer thread 1 (k = N) waits at an explicit barrier of the outer region
 *   teams      (barrier, for, sections, single, parallel, taskwait, taskgroup, ordered) on the host,
 *              "teams num_teams(2) thread_limit(N)", in each team a parallel region of N threads: both
 *              teams hang the same way (k = team number * N + thread number)
 * Defaults: barrier construct 3. N: 3..8 threads per case team. The thread that blocks last writes the
 * facts once every other thread is in its wait; the watcher thread (no OpenMP thread) then calls the
 * marker, prints JOMPD_RESULT ok and _exit(0)s.
 *
 * Facts: hang.kind=construct-hang, hang.construct, hang.where, hang.expect, hang.teams (case teams: 1 or
 * 2), hang.team_size (N), hang.critical.name (critical_named: big), hang.lock.address (lock, nest_lock).
 * Per thread k (fx_thread_facts, read by the thread itself): role = waiter | straggler | holder | runs_task;
 * wait = the construct the thread itself waits in: barrier, implicit_for, implicit_sections,
 * implicit_single, implicit_parallel, taskwait, taskgroup, ordered, critical, lock, nest_lock or none (in
 * user code); wait_line = that construct's "#pragma omp" line (locks: the omp_set_(nest_)lock call; none:
 * the read() line); wait_call_line where the compiler places the call that waits elsewhere (taskgroup:
 * its closing brace); beside each of these and the task keys below a *_function key: the function whose
 * code has that line (gdb's frame: it, or a region or task outlined from it). A holder: holds (critical, lock, nest_lock) and holds_line. A thread that runs a task inside its wait
 * (runs_task): task_line (the task's "#pragma omp task"), task_wait and task_wait_line (the wait inside the
 * task, same words; none = the read() line), task_wait_call_line as above.
 */
#define _GNU_SOURCE
#include "fixture.h"

#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *usage =
    "[CONSTRUCT (barrier|for|sections|single|parallel|taskwait|taskgroup|ordered|critical|critical_named|lock|"
    "nest_lock; default barrier) [WHERE (construct|task|nested|teams; default construct) [N (3..8, default 3)]]]";

enum construct { BARRIER, FOR, SECTIONS, SINGLE, PARALLEL, TASKWAIT, TASKGROUP, ORDERED, CRITICAL, CRITICAL_NAMED,
                 LOCK, NEST_LOCK, CONSTRUCTS };
static const char *construct_names[CONSTRUCTS] = {"barrier", "for", "sections", "single", "parallel", "taskwait",
                                                  "taskgroup", "ordered", "critical", "critical_named", "lock",
                                                  "nest_lock"};
/* The word thread.<k>.wait uses for a thread that waits in the construct. */
static const char *wait_names[CONSTRUCTS] = {"barrier", "implicit_for", "implicit_sections", "implicit_single",
                                             "implicit_parallel", "taskwait", "taskgroup", "ordered", "critical",
                                             "critical", "lock", "nest_lock"};
enum where { IN_CONSTRUCT, IN_TASK, NESTED, TEAMS, WHERES };
static const char *where_names[WHERES] = {"construct", "task", "nested", "teams"};

enum { SECTIONS_COUNT = 3 };

/* One case team: the team whose threads hang in the construct (two of them under teams). */
typedef struct {
  int kbase;          /* k of its thread 0 */
  int region_line;    /* its "#pragma omp parallel" */
  const char *region_function; /* the function that has it */
  fx_counter *ready;  /* the holder holds / the straggler took the single / a section started / C started */
} case_team;

static enum construct construct;
static enum where where;
static int nthreads, case_teams, total_slots;
static case_team teams_of_case[2];
static int teams_finished; /* atomic: case teams whose last thread is about to block */
static omp_lock_t lock;
static omp_nest_lock_t nest_lock;
static long never_sum; /* work in the blocks that never run (the hang cannot end) */

/* ---- blocking for good ------------------------------------------------------------------------------- */

/* Called by the thread that blocks last in its case team, right before it blocks: the last team's writes
 * the facts once every other thread is in its wait. */
static void finish(int k) {
  if (__atomic_add_fetch(&teams_finished, 1, __ATOMIC_ACQ_REL) < case_teams)
    return;
  fx_hang_await_except(total_slots, k);
  fx_hang_write_facts();
}

/* Records where thread k waits: line_key (wait_line, task_wait_line, wait_call_line, ...) = line, and the
 * same key with _function for _line = the function whose code has the line (gdb's frame of the call: it,
 * or a region or task outlined from it). */
static void put_place(int k, const char *line_key, int line, const char *function) {
  char function_key[64];
  size_t stem = strlen(line_key) - strlen("_line");
  snprintf(function_key, sizeof function_key, "%.*s_function", (int)stem, line_key);
  fx_thread_put(k, line_key, "%d", line);
  fx_thread_put(k, function_key, "%s", function);
}

/* Blocks for good in user code; records the read()'s line under line_key first. signal: counted up once
 * the facts are recorded (someone waits for this thread to be here); last: this thread blocks last. */
__attribute__((noinline)) static void block_for_good(int k, const char *line_key, fx_counter *signal, int last) {
  int fd = fx_hang_never_ready_fd();
  char c;
  put_place(k, line_key, __LINE__ + 7, __func__);
  if (signal)
    fx_counter_add(signal, 1);
  if (last)
    finish(k);
  fx_hang_enter(k);
  for (;;)
    if (read(fd, &c, 1) == 1) /* never: nobody writes the pipe */
      break;
}

/* The straggler: in user code, never reaches the construct. */
static void straggle(int k, int last) {
  fx_thread_facts(k, "straggler");
  fx_thread_put(k, "wait", "none");
  block_for_good(k, "wait_line", NULL, last);
}

/* A thread that waits in `wait` at `line`: its facts, then its slot (call right before the construct). */
static void waiter(int k, const char *wait, int line, const char *function) {
  fx_thread_facts(k, "waiter");
  fx_thread_put(k, "wait", "%s", wait);
  put_place(k, "wait_line", line, function);
}

static int k_of(case_team *t) { return t->kbase + omp_get_thread_num(); }

/* ---- critical sections and locks ---------------------------------------------------------------------- */

static void hold_it(int k, const char *what, int line, fx_counter *ready, int last) {
  fx_thread_facts(k, "holder");
  fx_thread_put(k, "wait", "none");
  fx_thread_put(k, "holds", "%s", what);
  fx_thread_put(k, "holds_line", "%d", line);
  block_for_good(k, "wait_line", ready, last);
}

/* The holder takes the critical section or lock and blocks for good holding it. */
static void hold(case_team *t, int k, int last) {
  switch (construct) {
  case CRITICAL:
#pragma omp critical
    hold_it(k, "critical", __LINE__ - 1, t->ready, last);
    break;
  case CRITICAL_NAMED:
#pragma omp critical(big)
    hold_it(k, "critical", __LINE__ - 1, t->ready, last);
    break;
  case LOCK:
    omp_set_lock(&lock);
    hold_it(k, "lock", __LINE__ - 1, t->ready, last);
    break;
  case NEST_LOCK:
    omp_set_nest_lock(&nest_lock);
    hold_it(k, "nest_lock", __LINE__ - 1, t->ready, last);
    break;
  default:
    fx_fail("no holder for %s", construct_names[construct]);
  }
}

/* Waits to enter the critical section or lock the holder holds; records the line under line_key. */
static void enter_held(int k, const char *line_key, int last) {
  switch (construct) {
  case CRITICAL:
    put_place(k, line_key, __LINE__ + 4, __func__);
    if (last)
      finish(k);
    fx_hang_enter(k);
#pragma omp critical
    never_sum++;
    break;
  case CRITICAL_NAMED:
    put_place(k, line_key, __LINE__ + 4, __func__);
    if (last)
      finish(k);
    fx_hang_enter(k);
#pragma omp critical(big)
    never_sum++;
    break;
  case LOCK:
    put_place(k, line_key, __LINE__ + 4, __func__);
    if (last)
      finish(k);
    fx_hang_enter(k);
    omp_set_lock(&lock);
    break;
  case NEST_LOCK:
    put_place(k, line_key, __LINE__ + 4, __func__);
    if (last)
      finish(k);
    fx_hang_enter(k);
    omp_set_nest_lock(&nest_lock);
    break;
  default:
    fx_fail("nothing held for %s", construct_names[construct]);
  }
}

/* ---- taskwait and taskgroup ----------------------------------------------------------------------------- */

/* Child task C: its thread took it from a barrier (it had entered its slot there) and blocks in it. */
static void blocked_child(case_team *t, int child_line, const char *child_function) {
  int k = k_of(t);
  fx_hang_leave(k);
  fx_thread_put(k, "role", "runs_task");
  put_place(k, "task_line", child_line, child_function);
  fx_thread_put(k, "task_wait", "none");
  block_for_good(k, "task_wait_line", t->ready, 0);
}

/* Creates C, waits until another thread runs it, then waits for it in a taskwait or at the end of a
 * taskgroup; the wait's line goes under line_key (and the taskgroup's call line under call_line_key).
 * The calling thread blocks last. */
static void wait_for_child(case_team *t, int k, const char *line_key, const char *call_line_key) {
  if (construct == TASKWAIT) {
#pragma omp task
    blocked_child(t, __LINE__ - 1, __func__);
    fx_counter_await(t->ready, 1);
    put_place(k, line_key, __LINE__ + 3, __func__);
    finish(k);
    fx_hang_enter(k);
#pragma omp taskwait
  } else {
    put_place(k, line_key, __LINE__ + 1, __func__);
#pragma omp taskgroup
    {
#pragma omp task
      blocked_child(t, __LINE__ - 1, __func__);
      fx_counter_await(t->ready, 1);
      put_place(k, call_line_key, __LINE__ + 3, __func__);
      finish(k);
      fx_hang_enter(k);
    } /* the end of the taskgroup: clang places the call that waits on this line */
  }
}

/* ---- the case team's threads, WHERE = construct, nested, teams ---------------------------------------- */

__attribute__((noinline)) static void in_construct(case_team *t) {
  int i = omp_get_thread_num(), n = omp_get_num_threads(), k = k_of(t);
  if (n != nthreads)
    fx_fail("team of %d threads, wanted %d", n, nthreads);
  switch (construct) {
  case BARRIER:
    if (i == n - 1)
      straggle(k, 1);
    waiter(k, "barrier", __LINE__ + 2, __func__);
    fx_hang_enter(k);
#pragma omp barrier
    break;
  case FOR: {
    int for_line = __LINE__ + 1;
#pragma omp for schedule(static, 1)
    for (int it = 0; it < n; it++) {
      if (it != i)
        fx_fail("iteration %d on thread %d", it, i);
      if (it == n - 1)
        straggle(k, 1);
      waiter(k, "implicit_for", for_line, __func__);
      fx_hang_enter(k);
    }
    break;
  }
  case SECTIONS: {
    int sections_line = __LINE__ + 1;
#pragma omp sections
    {
#pragma omp section
      {
        fx_counter_add(t->ready, 1);
        fx_counter_await(t->ready, SECTIONS_COUNT);
        waiter(k, "implicit_sections", sections_line, __func__);
        fx_hang_enter(k);
      }
#pragma omp section
      {
        fx_counter_add(t->ready, 1);
        fx_counter_await(t->ready, SECTIONS_COUNT);
        waiter(k, "implicit_sections", sections_line, __func__);
        fx_hang_enter(k);
      }
#pragma omp section
      {
        fx_counter_add(t->ready, 1);
        fx_counter_await(t->ready, SECTIONS_COUNT);
        straggle(k, 1);
      }
    }
    break;
  }
  case SINGLE:
    if (i != n - 1) { /* thread N-1 takes the single */
      fx_counter_await(t->ready, 1);
      waiter(k, "implicit_single", __LINE__ + 3, __func__);
      fx_hang_enter(k);
    }
#pragma omp single
    {
      fx_counter_add(t->ready, 1);
      straggle(k, 1);
    }
    break;
  case PARALLEL:
    if (i == n - 1)
      straggle(k, 1);
    waiter(k, "implicit_parallel", t->region_line, t->region_function);
    fx_hang_enter(k);
    break; /* to the end of the region */
  case TASKWAIT:
  case TASKGROUP:
    if (i == 0) {
      waiter(k, wait_names[construct], 0, __func__);
      wait_for_child(t, k, "wait_line", "wait_call_line");
    } else {
      waiter(k, "barrier", __LINE__ + 2, __func__);
      fx_hang_enter(k);
#pragma omp barrier
    }
    break;
  case ORDERED: {
#pragma omp for ordered schedule(static, 1)
    for (int it = 0; it < n; it++) {
      if (it != i)
        fx_fail("iteration %d on thread %d", it, i);
      if (it == 0)
        straggle(k, 1);
      waiter(k, "ordered", __LINE__ + 2, __func__);
      fx_hang_enter(k);
#pragma omp ordered
      never_sum += it;
    }
    break;
  }
  case CRITICAL:
  case CRITICAL_NAMED:
  case LOCK:
  case NEST_LOCK:
    if (i == n - 1)
      hold(t, k, 1);
    fx_counter_await(t->ready, 1);
    waiter(k, wait_names[construct], 0, __func__);
    enter_held(k, "wait_line", 0);
    break;
  default:
    fx_fail("no construct %d", (int)construct);
  }
}

/* ---- WHERE = task ---------------------------------------------------------------------------------------- */

/* Task T: taken by a thread at the single's barrier; waits in the construct and blocks last. */
static void waiting_task(case_team *t, int task_line, const char *task_function) {
  int k = k_of(t);
  fx_hang_leave(k);
  fx_thread_put(k, "role", "runs_task");
  put_place(k, "task_line", task_line, task_function);
  fx_thread_put(k, "task_wait", "%s", wait_names[construct]);
  if (construct == TASKWAIT || construct == TASKGROUP)
    wait_for_child(t, k, "task_wait_line", "task_wait_call_line");
  else
    enter_held(k, "task_wait_line", 1);
}

__attribute__((noinline)) static void in_task(case_team *t) {
  int i = omp_get_thread_num(), n = omp_get_num_threads(), k = k_of(t);
  if (n != nthreads)
    fx_fail("team of %d threads, wanted %d", n, nthreads);
  int held = construct != TASKWAIT && construct != TASKGROUP;
  if (held && i == n - 1)
    hold(t, k, 0);
  if (held)
    fx_counter_await(t->ready, 1);
  waiter(k, "implicit_single", __LINE__ + 2, __func__);
  fx_hang_enter(k);
#pragma omp single
  {
    fx_hang_leave(k); /* creating T is not waiting */
#pragma omp task
    waiting_task(t, __LINE__ - 1, __func__);
    fx_hang_enter(k);
  }
}

/* ---- the drivers ------------------------------------------------------------------------------------------ */

static void run_case_team(void) {
  case_team *t = &teams_of_case[0];
  t->region_function = __func__;
  t->region_line = __LINE__ + 1;
#pragma omp parallel num_threads(nthreads)
  {
    if (where == IN_TASK)
      in_task(t);
    else
      in_construct(t);
  }
}

static void run_nested(void) {
  case_team *t = &teams_of_case[0];
  int outer_barrier_line = 0;
#pragma omp parallel num_threads(2)
  {
    if (omp_get_num_threads() != 2)
      fx_fail("outer team of %d threads, wanted 2", omp_get_num_threads());
    if (omp_get_thread_num() == 0) {
      t->region_function = __func__;
      t->region_line = __LINE__ + 1;
#pragma omp parallel num_threads(nthreads)
      in_construct(t);
    } else {
      outer_barrier_line = __LINE__ + 3;
      waiter(nthreads, "barrier", outer_barrier_line, __func__);
      fx_hang_enter(nthreads);
#pragma omp barrier
    }
  }
  fx_fail("the outer region ended (barrier at line %d)", outer_barrier_line);
}

static void run_teams(void) {
#pragma omp teams num_teams(2) thread_limit(nthreads)
  {
    if (omp_get_num_teams() != 2)
      fx_fail("%d teams, wanted 2", omp_get_num_teams());
    case_team *t = &teams_of_case[omp_get_team_num()];
    t->kbase = omp_get_team_num() * nthreads;
    t->region_function = __func__;
    t->region_line = __LINE__ + 1;
#pragma omp parallel num_threads(nthreads)
    in_construct(t);
  }
}

/* ---- main ---------------------------------------------------------------------------------------------------- */

static int lookup(const char *word, const char **names, int count) {
  for (int i = 0; i < count; i++)
    if (strcmp(word, names[i]) == 0)
      return i;
  return -1;
}

static const char *expectation(char *buf, size_t size) {
  const char *team = where == NESTED ? "the inner team of outer thread 0" : where == TEAMS ? "each team's parallel team"
                                                                                          : "the team";
  int n = nthreads;
  switch (construct) {
  case BARRIER:
  case FOR:
  case SECTIONS:
  case SINGLE:
  case PARALLEL:
    snprintf(buf, size, "%s: %d of %d threads wait at the %s barrier (wait_line), the straggler has not reached it: "
             "it is in block_for_good (hang_constructs.c)%s", team, n - 1, n,
             construct == BARRIER ? "explicit" : construct == PARALLEL ? "implicit end-of-region" :
             construct == FOR ? "implicit for" : construct == SECTIONS ? "implicit sections" : "implicit single",
             where == NESTED ? "; outer thread 1 waits at the outer barrier for outer thread 0, the primary thread "
                               "of that team" : "");
    break;
  case ORDERED:
    snprintf(buf, size, "%s: %d threads wait in ordered for iteration 0, whose thread 0 is in block_for_good "
             "(hang_constructs.c) before its ordered region%s", team, n - 1,
             where == NESTED ? "; outer thread 1 waits at the outer barrier for outer thread 0" : "");
    break;
  case TASKWAIT:
  case TASKGROUP:
    if (where == IN_TASK)
      snprintf(buf, size, "task T, run by a thread from the single's implicit barrier, waits %s for its child C, "
               "which another thread runs from that barrier and which is in block_for_good (hang_constructs.c); "
               "the other threads wait at the barrier", construct == TASKWAIT ? "in a taskwait" :
               "at the end of a taskgroup");
    else
      snprintf(buf, size, "%s: thread 0 waits %s for its child task C, which a thread runs from the barrier and "
               "which is in block_for_good (hang_constructs.c); threads 1..%d wait at the barrier for thread 0%s",
               team, construct == TASKWAIT ? "in a taskwait" : "at the end of a taskgroup", n - 1,
               where == NESTED ? "; outer thread 1 waits at the outer barrier for outer thread 0" : "");
    break;
  default: {
    const char *what = construct == LOCK ? "the omp_lock_t" : construct == NEST_LOCK ? "the omp_nest_lock_t" :
                       construct == CRITICAL ? "the unnamed critical section" : "critical section big";
    if (where == IN_TASK)
      snprintf(buf, size, "thread %d holds %s and is in block_for_good (hang_constructs.c); task T, run by a "
               "thread from the single's implicit barrier, waits for %s; the other threads wait at that barrier "
               "(for thread %d)", n - 1, what, what, n - 1);
    else
      snprintf(buf, size, "%s: thread %d holds %s and is in block_for_good (hang_constructs.c); threads 0..%d wait "
               "for %s%s", team, n - 1, what, n - 2, what,
               where == NESTED ? "; outer thread 1 waits at the outer barrier for outer thread 0" : "");
  }
  }
  return buf;
}

int main(int argc, char **argv) {
  fx_arg_max(argc, argv, 3, usage);
  int c = argc > 1 ? lookup(argv[1], construct_names, CONSTRUCTS) : BARRIER;
  int w = argc > 2 ? lookup(argv[2], where_names, WHERES) : IN_CONSTRUCT;
  if (c < 0)
    fx_usage_exit(argv, usage, "unknown CONSTRUCT");
  if (w < 0)
    fx_usage_exit(argv, usage, "unknown WHERE");
  construct = (enum construct)c;
  where = (enum where)w;
  nthreads = fx_arg_int(argc, argv, 3, 3, 3, 8, usage);
  if (construct == SECTIONS && nthreads != SECTIONS_COUNT)
    fx_usage_exit(argv, usage, "sections has 3 sections, one per thread: N must be 3");
  int held = construct == CRITICAL || construct == CRITICAL_NAMED || construct == LOCK || construct == NEST_LOCK;
  if (where == IN_TASK && !held && construct != TASKWAIT && construct != TASKGROUP)
    fx_usage_exit(argv, usage, "a task can wait only in taskwait, taskgroup, critical, critical_named, lock or "
                               "nest_lock (a barrier, worksharing or ordered construct must not be nested in a task)");
  if (where == TEAMS && held)
    fx_usage_exit(argv, usage, "under teams only team-local constructs (a critical section or lock is one for "
                               "both teams)");
  char set[128] = "";
  if (where == TEAMS) { /* as teams.c: libomp's defaults give each team fewer threads (the number of processors) */
    char value[16];
    if (!getenv("KMP_TEAMS_THREAD_LIMIT")) {
      snprintf(value, sizeof value, "%d", 2 * nthreads);
      setenv("KMP_TEAMS_THREAD_LIMIT", value, 0);
      strcat(set, "KMP_TEAMS_THREAD_LIMIT");
    }
    if (!getenv("OMP_NUM_THREADS")) {
      snprintf(value, sizeof value, "%d", nthreads);
      setenv("OMP_NUM_THREADS", value, 0);
      strcat(set, *set ? ",OMP_NUM_THREADS" : "OMP_NUM_THREADS");
    }
  }
  fx_init("hang_constructs", argc, argv);
  fx_put("env_set_by_program", "%s", set);
  omp_set_dynamic(0);
  case_teams = where == TEAMS ? 2 : 1;
  total_slots = where == TEAMS ? 2 * nthreads : where == NESTED ? nthreads + 1 : nthreads;
  for (int i = 0; i < case_teams; i++)
    teams_of_case[i].ready = fx_counter_new();
  char expect[1024];
  fx_put("hang.kind", "construct-hang");
  fx_put("hang.construct", "%s", construct_names[construct]);
  fx_put("hang.where", "%s", where_names[where]);
  fx_put("hang.teams", "%d", case_teams);
  fx_put("hang.team_size", "%d", nthreads);
  fx_put("hang.expect", "%s", expectation(expect, sizeof expect));
  if (construct == CRITICAL_NAMED)
    fx_put("hang.critical.name", "big");
  if (construct == LOCK) {
    omp_init_lock(&lock);
    fx_put("hang.lock.address", "0x%lx", (unsigned long)&lock);
  }
  if (construct == NEST_LOCK) {
    omp_init_nest_lock(&nest_lock);
    fx_put("hang.lock.address", "0x%lx", (unsigned long)&nest_lock);
  }
  fx_hang_watch(total_slots);
  if (where == NESTED) {
    omp_set_max_active_levels(2);
    run_nested();
  } else if (where == TEAMS) {
    run_teams();
  } else {
    run_case_team();
  }
  fx_fail("the hang ended (%ld)", never_sum);
}
