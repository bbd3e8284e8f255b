/*
 * recorder_control.c -- drives every omp_control_tool command (OpenMP 5.1 §3.14) against the
 * jompd-recorder and records each result code as the program saw it.
 *
 * Sequence (fact control.<i>.command / .modifier / .result / .phase, i = 0, 1, ...; control.count):
 *   before any parallel region: start                        (libomp answers notool here: its
 *                                                              middle initialisation has not run)
 *   after a first parallel region: start, flush, mark(64, "first mark"), mark(64, NULL arg),
 *   pause, [a 2-thread parallel region: not recorded], start, snapshot(65, "snap"), command 99
 *   (unknown tool command), end, start, pause, mark(64, "after end")
 * phase is "before_init", "active", "after_end"; control.<i>.text is the message of a mark or snapshot
 * (64, 65; empty for a NULL arg). After the last command the initial thread calls the
 * marker. Extra facts: paused_region_ran=1 (the region run while paused), control.count.
 */
#include "fixture.h"

#include <omp.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

static int count;

static void command(const char *phase, int cmd, int modifier, void *arg) {
  int result = omp_control_tool(cmd, modifier, arg);
  char key[64];
  snprintf(key, sizeof key, "control.%d.command", count);
  fx_put(key, "%d", cmd);
  snprintf(key, sizeof key, "control.%d.modifier", count);
  fx_put(key, "%d", modifier);
  snprintf(key, sizeof key, "control.%d.result", count);
  fx_put(key, "%d", result);
  snprintf(key, sizeof key, "control.%d.phase", count);
  fx_put(key, "%s", phase);
  if (cmd == 64 || cmd == 65) { /* the tool's mark and snapshot: arg is the message (NULL: none) */
    snprintf(key, sizeof key, "control.%d.text", count);
    fx_put(key, "%s", arg ? (const char *)arg : "");
  }
  count++;
}

int main(int argc, char **argv) {
  fx_init("recorder_control", argc, argv);
  fx_arg_max(argc, argv, 0, "");
  omp_set_dynamic(0);
  command("before_init", omp_control_tool_start, 0, NULL);
  int ran = 0;
#pragma omp parallel num_threads(2) reduction(+ : ran)
  ran += 1;
  command("active", omp_control_tool_start, 0, NULL);
  command("active", omp_control_tool_flush, 0, NULL);
  command("active", 64, 1, "first mark");
  command("active", 64, 2, NULL);
  command("active", omp_control_tool_pause, 0, NULL);
  int paused = 0;
#pragma omp parallel num_threads(2) reduction(+ : paused)
  paused += 1;
  fx_put("paused_region_ran", "%d", paused == 2);
  command("active", omp_control_tool_start, 0, NULL);
  command("active", 65, 3, "snap");
  command("active", 99, 0, NULL);
  command("active", omp_control_tool_end, 0, NULL);
  command("after_end", omp_control_tool_start, 0, NULL);
  command("after_end", omp_control_tool_pause, 0, NULL);
  command("after_end", 64, 4, "after end");
  fx_put("control.count", "%d", count);
  fx_thread_facts(0, "marker");
  fx_write_facts_and_mark(0);
  fx_ok((unsigned long long)(ran + paused));
  return 0;
}
