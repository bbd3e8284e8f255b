/*
 * cxx_names.cpp -- C++ names as gdb spells them (built with clang++-19): a parallel region in a member
 * function of a class template in a namespace, whose threads run a lambda of that function.
 *
 * sim::Grid<double>::relax() starts a region of 2 threads; each calls the lambda step(i) defined in relax().
 * In it thread 0 records its facts and calls the marker; thread 1 waits at the gate in sim::wait_at_gate<8u>
 * (a function template with an ABI tag, [abi:fx]). gdb names the lambda's
 * frames sim::Grid<double>::relax()::{lambda(int)#1}::operator()(int) const (the demangled linkage name), the
 * region's outlined function by its DWARF name. Facts: relax_name (the function the region is in, as the
 * program's __PRETTY_FUNCTION__ has it: void sim::Grid<double>::relax()), cells (the checksum's input).
 */
#include "fixture.h"

#include <omp.h>

namespace sim {
/*
 * Where thread 1 waits: a function template with an ABI tag. gdb's C++ name parser does not read the tag, so
 * gdb's frame keeps the parameters of the demangled name and drops only its return type:
 * sim::wait_at_gate[abi:fx]<8u>(char const*).
 */
template <unsigned N> __attribute__((noinline, abi_tag("fx"))) int wait_at_gate(const char *why) {
  fx_gate_wait();
  return why[0] == 'g' ? (int)N : 0;
}

template <class T> struct Grid {
  T cells[2] = {20, 22};

  __attribute__((noinline)) void relax() {
    fx_put("relax_name", "%s", __PRETTY_FUNCTION__);
    auto step = [&](int i) {
      if (i == 0) {
        fx_thread_facts(0, "marker");
        fx_gate_await(1);
        fx_write_facts_and_mark(0);
        fx_gate_open();
      } else {
        fx_thread_facts(i, "gate");
        cells[i] -= wait_at_gate<8u>("gate") - 8;
      }
      cells[i] += 1;
    };
#pragma omp parallel num_threads(2)
    step(omp_get_thread_num());
  }
};
} // namespace sim

int main(int argc, char **argv) {
  fx_init("cxx_names", argc, argv);
  fx_arg_max(argc, argv, 0, "(no arguments)");
  omp_set_dynamic(0);
  sim::Grid<double> grid;
  grid.relax();
  double sum = grid.cells[0] + grid.cells[1];
  if (sum != 44)
    fx_fail("sum %g, wanted 44", sum);
  fx_ok((unsigned long long)sum);
  return 0;
}
