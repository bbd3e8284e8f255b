/*
 * ompt_tool.c [N [M]] -- an OMPT tool inside the program that stores known values in the
 * tool data of threads, parallel regions and tasks; a nested region of N outer (default 2)
 * and M inner (default 2) threads.
 *
 * The program defines ompt_start_tool; its initialize callback registers, with
 * ompt_set_callback, thread_begin, parallel_begin, implicit_task, task_create and
 * control_tool callbacks, which store:
 *   thread data   = 1000 + n  (n-th thread_begin: the initial thread gets 1000)
 *   parallel data = 2000 + n  (n-th parallel_begin: the outer region gets 2000)
 *   task data     = 3000 + n  (n-th implicit task begin: the initial task gets 3000)
 *                 = 4000 + n  (n-th explicit task created)
 * omp_set_dynamic(0), omp_set_max_active_levels(2). At the marker every thread is in the
 * inner region; thread k = ancestor(1) * M + ancestor(2). Thread 0 (ancestors 0,0) runs an
 * undeferred explicit task (if(0), task data 4000) in which it calls omp_control_tool with
 * every command (facts control_tool.*), and then the marker; the others wait at the gate.
 * Each thread records what the OMPT inquiry functions answer on that thread:
 *   thread.<k>.tool.thread_data, .tool.parallel_data, .tool.task_data, .tool.task_flags,
 *   .tool.parallel_data_chain (ancestor levels 0, 1, ...), .tool.task_data_chain.
 *
 * The control_tool callback follows OpenMP 5.x (omp_control_tool): start, pause, flush
 * and end answer omp_control_tool_success (0) while the tool is active; once "end" has been
 * received every command answers omp_control_tool_ignored (1). Tool-specific command 64 writes
 * this thread's tool thread data to *(uint64_t *)arg and answers 65 (a tool-defined value,
 * which the spec allows above 64); other commands answer omp_control_tool_ignored (1).
 */
#include "fixture.h"

#include <omp-tools.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static const char *usage = "[N (1..64, default 2) [M (1..64, default 2)]]";

/* ---- the tool ---------------------------------------------------------------------------- */

static ompt_get_thread_data_t get_thread_data;
static ompt_get_parallel_info_t get_parallel_info;
static ompt_get_task_info_t get_task_info;
static int next_thread, next_parallel, next_implicit, next_explicit;
static int tool_ended, control_calls;
static int set_rc[5];
static int tool_active;

static uint64_t next(int *counter) { return (uint64_t)__atomic_fetch_add(counter, 1, __ATOMIC_SEQ_CST); }

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  (void)type;
  thread_data->value = 1000 + next(&next_thread);
}

static void on_parallel_begin(ompt_data_t *encountering_task_data,
                              const ompt_frame_t *encountering_task_frame,
                              ompt_data_t *parallel_data, unsigned int requested_parallelism,
                              int flags, const void *codeptr_ra) {
  (void)encountering_task_data, (void)encountering_task_frame, (void)requested_parallelism;
  (void)flags, (void)codeptr_ra;
  parallel_data->value = 2000 + next(&next_parallel);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags) {
  (void)parallel_data, (void)actual_parallelism, (void)index, (void)flags;
  if (endpoint == ompt_scope_begin)
    task_data->value = 3000 + next(&next_implicit);
}

static void on_task_create(ompt_data_t *encountering_task_data,
                           const ompt_frame_t *encountering_task_frame, ompt_data_t *new_task_data,
                           int flags, int has_dependences, const void *codeptr_ra) {
  (void)encountering_task_data, (void)encountering_task_frame, (void)has_dependences;
  (void)codeptr_ra;
  if (flags & ompt_task_explicit)
    new_task_data->value = 4000 + next(&next_explicit);
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg,
                           const void *codeptr_ra) {
  (void)modifier, (void)codeptr_ra;
  __atomic_fetch_add(&control_calls, 1, __ATOMIC_SEQ_CST);
  if (tool_ended)
    return omp_control_tool_ignored;
  switch (command) {
  case omp_control_tool_start:
  case omp_control_tool_pause:
  case omp_control_tool_flush:
    return omp_control_tool_success;
  case omp_control_tool_end:
    tool_ended = 1;
    return omp_control_tool_success;
  case 64:
    if (arg)
      *(uint64_t *)arg = get_thread_data()->value;
    return 65;
  default:
    return omp_control_tool_ignored;
  }
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
                           ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  get_thread_data = (ompt_get_thread_data_t)lookup("ompt_get_thread_data");
  get_parallel_info = (ompt_get_parallel_info_t)lookup("ompt_get_parallel_info");
  get_task_info = (ompt_get_task_info_t)lookup("ompt_get_task_info");
  if (!set_callback || !get_thread_data || !get_parallel_info || !get_task_info)
    return 0;
  set_rc[0] = set_callback(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
  set_rc[1] = set_callback(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
  set_rc[2] = set_callback(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
  set_rc[3] = set_callback(ompt_callback_task_create, (ompt_callback_t)on_task_create);
  set_rc[4] = set_callback(ompt_callback_control_tool, (ompt_callback_t)on_control_tool);
  tool_active = 1;
  return 1;
}

static void tool_finalize(ompt_data_t *tool_data) { (void)tool_data; }

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  (void)omp_version;
  fx_put("ompt.runtime_version", "%s", runtime_version ? runtime_version : "");
  static ompt_start_tool_result_t result = {tool_initialize, tool_finalize, {0}};
  return &result;
}

/* ---- the program ----------------------------------------------------------------------- */

static int n_outer, m_inner;
static unsigned long long sum;

static void tool_facts(int k) {
  fx_thread_put(k, "tool.thread_data", "%lu", (unsigned long)get_thread_data()->value);
  ompt_data_t *pd = NULL;
  int size = 0;
  if (get_parallel_info(0, &pd, &size) == 2 && pd)
    fx_thread_put(k, "tool.parallel_data", "%lu", (unsigned long)pd->value);
  int flags = 0, thread_num = 0;
  ompt_data_t *td = NULL;
  ompt_frame_t *frame = NULL;
  if (get_task_info(0, &flags, &td, &frame, &pd, &thread_num) == 2 && td) {
    fx_thread_put(k, "tool.task_data", "%lu", (unsigned long)td->value);
    fx_thread_put(k, "tool.task_flags", "0x%x", (unsigned)flags);
  }
  char chain[512];
  size_t len = 0;
  chain[0] = '\0';
  for (int l = 0; l < 16; l++) {
    pd = NULL;
    if (get_parallel_info(l, &pd, &size) == 0 || !pd)
      break;
    len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%lu", l ? "," : "",
                            (unsigned long)pd->value);
  }
  fx_thread_put(k, "tool.parallel_data_chain", "%s", chain);
  len = 0;
  chain[0] = '\0';
  for (int l = 0; l < 16; l++) {
    td = NULL;
    if (get_task_info(l, &flags, &td, &frame, &pd, &thread_num) == 0 || !td)
      break;
    len += (size_t)snprintf(chain + len, sizeof chain - len, "%s%lu", l ? "," : "",
                            (unsigned long)td->value);
  }
  fx_thread_put(k, "tool.task_data_chain", "%s", chain);
}

static void marker_task(void) {
  static const struct {
    const char *name;
    int command;
  } cmds[] = {{"start", omp_control_tool_start}, {"pause", omp_control_tool_pause},
              {"flush", omp_control_tool_flush}, {"64", 64},
              {"99", 99},                        {"end", omp_control_tool_end},
              {"start_after_end", omp_control_tool_start}};
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    uint64_t arg = 0;
    int rc = omp_control_tool(cmds[i].command, 7, &arg);
    char key[64];
    snprintf(key, sizeof key, "control_tool.%s", cmds[i].name);
    fx_put(key, "%d", rc);
    if (cmds[i].command == 64)
      fx_put("control_tool.64.arg", "%lu", (unsigned long)arg);
  }
  fx_put("control_tool.callback_calls", "%d", control_calls);
  fx_thread_facts(0, "marker");
  fx_thread_put(0, "task", "explicit_undeferred");
  tool_facts(0);
  fx_gate_await((long)n_outer * m_inner - 1);
  fx_write_facts_and_mark(0);
  fx_gate_open();
}

static int run(void) {
  /* Before the first parallel region libomp has not finished its "middle" initialisation and
   * answers omp_control_tool_notool (-2) even though a tool is active. */
  fx_put("control_tool.before_first_parallel", "%d", omp_control_tool(omp_control_tool_flush, 0, NULL));
  if (!tool_active)
    fx_fail("the program's OMPT tool is not active (OMP_TOOL=disabled?)");
  omp_set_dynamic(0);
  omp_set_max_active_levels(2);
  fx_put("ompt.set_callback.thread_begin", "%d", set_rc[0]);
  fx_put("ompt.set_callback.parallel_begin", "%d", set_rc[1]);
  fx_put("ompt.set_callback.implicit_task", "%d", set_rc[2]);
  fx_put("ompt.set_callback.task_create", "%d", set_rc[3]);
  fx_put("ompt.set_callback.control_tool", "%d", set_rc[4]);

#pragma omp parallel num_threads(n_outer)
  {
    if (omp_get_num_threads() != n_outer)
      fx_fail("outer team of %d threads, wanted %d", omp_get_num_threads(), n_outer);
#pragma omp parallel num_threads(m_inner)
    {
      if (omp_get_num_threads() != m_inner)
        fx_fail("inner team of %d threads, wanted %d", omp_get_num_threads(), m_inner);
      int k = omp_get_ancestor_thread_num(1) * m_inner + omp_get_thread_num();
      if (k == 0) {
#pragma omp task if(0)
        marker_task();
      } else {
        fx_thread_facts(k, "gate");
        tool_facts(k);
        fx_gate_wait();
      }
#pragma omp atomic
      sum += (unsigned long long)k + 1;
    }
  }
  unsigned long long total = (unsigned long long)n_outer * m_inner;
  if (sum != total * (total + 1) / 2)
    fx_fail("sum %llu", sum);
  fx_ok(sum);
  return 0;
}

int main(int argc, char **argv) {
  fx_init("ompt_tool", argc, argv);
  fx_arg_max(argc, argv, 2, usage);
  n_outer = fx_arg_int(argc, argv, 1, 2, 1, 64, usage);
  m_inner = fx_arg_int(argc, argv, 2, 2, 1, 64, usage);
  return run();
}
