/*
 * cxx_firstprivate.cpp -- a region whose clauses run C++ code (built with clang++-19): firstprivate of a
 * std::vector and of a class with its own copy constructor, and a reduction.
 *
 * Each thread's copies are made by the region's outlined function on the directive's line, which calls
 * the copy constructors (libstdc++'s std::vector one, from its header, and Tally's, above main): a step
 * into the region passes through them before the region's first statement. Thread 0 calls the marker,
 * thread 1 waits at the gate. Facts: tally_copies (Tally's copy count in thread 0's copy: 1).
 */
#include "fixture.h"

#include <omp.h>
#include <vector>

struct Tally {
  int copies;
  Tally() : copies(0) {}
  Tally(const Tally &other) : copies(other.copies + 1) {}
};

int main(int argc, char **argv) {
  fx_init("cxx_firstprivate", argc, argv);
  fx_arg_max(argc, argv, 0, "(no arguments)");
  omp_set_dynamic(0);
  std::vector<int> cells(8, 1);
  Tally tally;
  long sum = 0;
#pragma omp parallel num_threads(2) firstprivate(cells, tally) reduction(+ : sum)
  {
    int k = omp_get_thread_num();
    sum += (long)cells.size() + tally.copies;
    if (k == 0) {
      fx_put("tally_copies", "%d", tally.copies);
      fx_thread_facts(0, "marker");
      fx_gate_await(1);
      fx_write_facts_and_mark(0);
      fx_gate_open();
    } else {
      fx_thread_facts(k, "gate");
      fx_gate_wait();
    }
  }
  if (sum != 18)
    fx_fail("sum %ld, wanted 18", sum);
  fx_ok((unsigned long long)sum);
  return 0;
}
