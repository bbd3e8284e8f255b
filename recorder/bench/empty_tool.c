/* The benchmark's anchor: an OMPT tool that registers every callback of Table 4.2 with an empty
 * function. With it libomp pays its own OMPT cost (what any tool costs); the difference between it
 * and the recorder is the recorder's own cost. */
#include <omp-tools.h>

static void nothing(void) {}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  for (int callback = ompt_callback_thread_begin; callback <= ompt_callback_error; callback++)
    if (callback != ompt_callback_control_tool) /* it must answer an int */
      set_callback((ompt_callbacks_t)callback, (ompt_callback_t)nothing);
  return 1;
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

__attribute__((visibility("default"))) ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                                                 const char *runtime_version) {
  (void)omp_version, (void)runtime_version;
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  return &result;
}
