/*
 * recorder_offload.c [REGIONS] -- target regions offloaded to the host devices of Debian's LLVM 19
 * (clang-19 -fopenmp -fopenmp-targets=x86_64-pc-linux-gnu; libomptarget and its host plugin from
 * libomp-19-dev, clang-offload-packager from clang-tools-19), for the jompd-recorder's device records.
 *
 * Built and run against Debian's libomp/libomptarget (/usr/lib/llvm-19/lib), not the OMPD build:
 * libomptarget needs the libomp it was built with. REGIONS (1..100, default 3) target regions run on
 * device (i % omp_get_num_devices()), each adding its index to a mapped counter; the initial thread
 * then calls the marker (the devices stay initialised until the program exits).
 * Extra facts: num_devices, target_regions, devices_used (distinct devices the regions ran on),
 * counter (the mapped result), counter_expected.
 */
#include "fixture.h"

#include <omp.h>

static const char *usage = "[REGIONS (1..100, default 3)]";

int main(int argc, char **argv) {
  fx_init("recorder_offload", argc, argv);
  fx_arg_max(argc, argv, 1, usage);
  int regions = fx_arg_int(argc, argv, 1, 3, 1, 100, usage);
  int devices = omp_get_num_devices();
  if (devices < 1)
    fx_fail("no offload device (libomptarget or its host plugin missing?)");
  long counter = 0, expected = 0;
  for (int i = 0; i < regions; i++) {
    int device = i % devices;
#pragma omp target device(device) map(tofrom : counter)
    counter += i + 1;
    expected += i + 1;
  }
  fx_put("num_devices", "%d", devices);
  fx_put("target_regions", "%d", regions);
  fx_put("devices_used", "%d", regions < devices ? regions : devices);
  fx_put("counter", "%ld", counter);
  fx_put("counter_expected", "%ld", expected);
  fx_thread_facts(0, "marker");
  fx_write_facts_and_mark(0);
  if (counter != expected)
    fx_fail("counter %ld != %ld", counter, expected);
  fx_ok((unsigned long long)counter);
  return 0;
}
