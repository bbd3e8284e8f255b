/*
 * jompd-recorder: see jompd-recorder.h for the layout a debugger reads.
 *
 * Loaded through OMP_TOOL_LIBRARIES=/path/libjompd-recorder.so. Environment:
 *   JOMPD_RECORDER_EVENTS  events kept per thread (default 1024, rounded up to a power of two,
 *                          16..1048576)
 */
#define _GNU_SOURCE
#include "jompd-recorder.h"

#include <omp-tools.h>
#include <omp.h> /* omp_control_tool_result_t and the standard commands */
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define EXPORT __attribute__((visibility("default")))

static struct jompd_recorder_state state;
static uint64_t next_id = 1;

/* Callbacks a task- or chunk-heavy program sends millions of: their events carry the coarse clock
 * (jompd-recorder.h, "Time"). */
#define COARSE_CALLBACKS                                                                          \
  ((1ull << ompt_callback_task_create) | (1ull << ompt_callback_task_schedule) |                \
   (1ull << ompt_callback_dispatch) | (1ull << ompt_callback_dependences) |                     \
   (1ull << ompt_callback_task_dependence))

/* Explicit tasks carry their id in their tool data itself, (id << 1) | TASK_ID_TAG (odd: no record's
 * address is), instead of a record: a record made by the creating thread and read, written and given back
 * by the thread that runs the task moved two cache lines between cores per task (measured: most of what
 * the recorder cost a task with two threads). A task's creation site and time are its task_create event. */
#define TASK_ID_TAG 1u

/* ---- the self-description ------------------------------------------------------------ */

#define SIZE(type) {#type ".size", sizeof(struct jompd_recorder_##type)}
#define FIELD(type, field)                                                                    \
  {#type "." #field, offsetof(struct jompd_recorder_##type, field)},                          \
  {#type "." #field ".size", sizeof(((struct jompd_recorder_##type *)0)->field)}

static struct jompd_recorder_layout_entry layout[] = {
    SIZE(event),
    FIELD(event, seq), FIELD(event, time_ns), FIELD(event, callback), FIELD(event, endpoint),
    FIELD(event, kind), FIELD(event, codeptr_ra), FIELD(event, parallel_id), FIELD(event, task_id),
    FIELD(event, value), FIELD(event, aux),
    SIZE(mutex),
    FIELD(mutex, kind), FIELD(mutex, wait_id), FIELD(mutex, codeptr_ra), FIELD(mutex, time_ns),
    SIZE(thread),
    FIELD(thread, next), FIELD(thread, serial), FIELD(thread, pthread_id), FIELD(thread, lwp),
    FIELD(thread, thread_type), FIELD(thread, ended), FIELD(thread, begin_time_ns),
    FIELD(thread, end_time_ns), FIELD(thread, capacity), FIELD(thread, head), FIELD(thread, events),
    FIELD(thread, held_count), FIELD(thread, held_overflow), FIELD(thread, held),
    FIELD(thread, waiting), FIELD(thread, clock_slot), FIELD(thread, clock_ticks),
    FIELD(thread, clock_ns),
    SIZE(region),
    FIELD(region, id), FIELD(region, codeptr_ra), FIELD(region, begin_time_ns), FIELD(region, flags),
    FIELD(region, parent_task_id), FIELD(region, parallelism),
    SIZE(mark),
    FIELD(mark, seq), FIELD(mark, time_ns), FIELD(mark, thread_serial), FIELD(mark, command),
    FIELD(mark, modifier), FIELD(mark, text),
    SIZE(command),
    FIELD(command, seq), FIELD(command, time_ns), FIELD(command, thread_serial),
    FIELD(command, command), FIELD(command, modifier), FIELD(command, result),
    SIZE(trace_record),
    FIELD(trace_record, type), FIELD(trace_record, device_time), FIELD(trace_record, host_time_ns),
    FIELD(trace_record, target_id),
    SIZE(device),
    FIELD(device, device_num), FIELD(device, type), FIELD(device, initialize_time_ns),
    FIELD(device, finalize_time_ns), FIELD(device, loads), FIELD(device, load_bytes),
    FIELD(device, entry_points), FIELD(device, tracing), FIELD(device, trace_records),
    FIELD(device, trace),
    SIZE(state),
    FIELD(state, threads), FIELD(state, thread_count), FIELD(state, ring_capacity),
    FIELD(state, monitoring), FIELD(state, start_time_ns), FIELD(state, clock_kind),
    FIELD(state, clock_ticks0), FIELD(state, clock_ns0), FIELD(state, clock_ticks1),
    FIELD(state, clock_ns1), FIELD(state, coarse_resolution_ns), FIELD(state, omp_version),
    FIELD(state, runtime_version), FIELD(state, registration), FIELD(state, mark_count),
    FIELD(state, marks), FIELD(state, command_count), FIELD(state, commands),
    FIELD(state, device_count), FIELD(state, devices),
    {"constant.held_max", JOMPD_RECORDER_HELD_MAX},
    {"constant.marks", JOMPD_RECORDER_MARKS},
    {"constant.commands", JOMPD_RECORDER_COMMANDS},
    {"constant.devices", JOMPD_RECORDER_DEVICES},
    {"constant.device_trace", JOMPD_RECORDER_DEVICE_TRACE},
    {"constant.callbacks", JOMPD_RECORDER_CALLBACKS},
    {"constant.coarse_callbacks", COARSE_CALLBACKS},
    {"constant.task_id_tag", TASK_ID_TAG},
};

EXPORT struct jompd_recorder_descriptor jompd_recorder_descriptor = {
    JOMPD_RECORDER_MAGIC, JOMPD_RECORDER_VERSION, sizeof layout / sizeof layout[0], layout, &state};

EXPORT __attribute__((noinline)) void jompd_recorder_snapshot_point(void) { __asm__ volatile(""); }

/* ---- time, threads, rings -------------------------------------------------------------- */

static inline uint64_t monotonic_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static int use_tsc;

/* CLOCK_MONOTONIC at the kernel's last tick: half the cost of a TSC read here, for the frequent events. */
static inline uint64_t coarse_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks of the recorder's clock (jompd-recorder.h, "Time"). */
static inline uint64_t now_ns(void) {
#if defined(__x86_64__)
  if (use_tsc)
    return __rdtsc();
#endif
  return monotonic_ns();
}

/* The TSC only where the kernel itself trusts it as its clocksource (constant rate, synchronised). */
static int kernel_uses_tsc(void) {
#if defined(__x86_64__)
  FILE *f = fopen("/sys/devices/system/clocksource/clocksource0/current_clocksource", "r");
  if (!f)
    return 0;
  char name[32] = {0};
  int ok = fgets(name, sizeof name, f) && strncmp(name, "tsc\n", 4) == 0;
  fclose(f);
  return ok;
#else
  return 0;
#endif
}

static void clock_pair(uint64_t *ticks, uint64_t *ns) {
  *ticks = now_ns();
  *ns = monotonic_ns();
}

static void calibrate_clock(void) {
  use_tsc = kernel_uses_tsc() && !getenv("JOMPD_RECORDER_NO_TSC");
  state.clock_kind = use_tsc ? JOMPD_RECORDER_CLOCK_TSC : JOMPD_RECORDER_CLOCK_MONOTONIC;
  clock_pair(&state.clock_ticks0, &state.clock_ns0);
  uint64_t ticks, ns;
  do
    clock_pair(&ticks, &ns);
  while (use_tsc && ns - state.clock_ns0 < 200000);
  state.clock_ticks1 = ticks;
  state.clock_ns1 = ns;
  struct timespec resolution;
  if (clock_getres(CLOCK_MONOTONIC_COARSE, &resolution) == 0)
    state.coarse_resolution_ns = (uint64_t)resolution.tv_sec * 1000000000u + (uint64_t)resolution.tv_nsec;
}

static uint64_t new_id(void) { return __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED); }

/* initial-exec: every event reads this, and the general-dynamic model would call __tls_get_addr each
 * time. 8 bytes fit glibc's static TLS reserve for dlopen'ed libraries. */
static __thread struct jompd_recorder_thread *self __attribute__((tls_model("initial-exec")));

/* A thread's first event: its record and ring (out of line, so that the fast path below inlines). */
static __attribute__((noinline, cold)) struct jompd_recorder_thread *new_thread_record(void) {
  struct jompd_recorder_thread *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->events = calloc(state.ring_capacity, sizeof *t->events);
  if (!t->events) {
    free(t);
    return NULL;
  }
  t->capacity = state.ring_capacity;
  t->pthread_id = (uint64_t)pthread_self();
  t->lwp = (uint64_t)syscall(SYS_gettid);
  t->begin_time_ns = now_ns();
  clock_pair(&t->clock_ticks[0], &t->clock_ns[0]);
  t->serial = __atomic_fetch_add(&state.thread_count, 1, __ATOMIC_RELAXED);
  struct jompd_recorder_thread *head = __atomic_load_n(&state.threads, __ATOMIC_RELAXED);
  do {
    t->next = head;
  } while (!__atomic_compare_exchange_n(&state.threads, &head, t, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
  self = t;
  return t;
}

static inline __attribute__((always_inline)) struct jompd_recorder_thread *thread_record(void) {
  struct jompd_recorder_thread *t = self;
  return t ? t : new_thread_record();
}

static inline int recording(void) {
  return __atomic_load_n(&state.monitoring, __ATOMIC_RELAXED) == JOMPD_RECORDER_MONITORING_ON;
}

static inline __attribute__((always_inline)) void record_at(uint64_t time_ns, uint16_t callback, uint16_t endpoint, uint32_t kind,
                             const void *codeptr_ra, uint64_t parallel_id, uint64_t task_id,
                             uint64_t value, uint64_t aux) {
  struct jompd_recorder_thread *t = thread_record();
  if (!t)
    return;
  uint64_t h = t->head;
  struct jompd_recorder_event *e = &t->events[h & (t->capacity - 1)];
  /* seq 0 marks the slot as being written: a reader stopping us here drops it. */
  __atomic_store_n(&e->seq, 0, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  e->time_ns = time_ns;
  e->callback = callback;
  e->endpoint = endpoint;
  e->kind = kind;
  e->codeptr_ra = (uint64_t)(uintptr_t)codeptr_ra;
  e->parallel_id = parallel_id;
  e->task_id = task_id;
  e->value = value;
  e->aux = aux;
  __atomic_store_n(&e->seq, h + 1, __ATOMIC_RELEASE);
  __atomic_store_n(&t->head, h + 1, __ATOMIC_RELEASE);
  if ((h & 4095) == 4095) { /* keeps the tick rate known to within a few ppm in long runs */
    /* Write the other slot, then publish it: a reader never sees half a pair. */
    uint64_t slot = t->clock_slot ^ 1;
    clock_pair(&t->clock_ticks[slot], &t->clock_ns[slot]);
    __atomic_store_n(&t->clock_slot, slot, __ATOMIC_RELEASE);
  }
}

static inline __attribute__((always_inline)) void record_always(uint16_t callback, uint16_t endpoint, uint32_t kind,
                                 const void *codeptr_ra, uint64_t parallel_id, uint64_t task_id,
                                 uint64_t value, uint64_t aux) {
  record_at(now_ns(), callback, endpoint, kind, codeptr_ra, parallel_id, task_id, value, aux);
}

static inline __attribute__((always_inline)) void record(uint16_t callback, uint16_t endpoint, uint32_t kind, const void *codeptr_ra,
                          uint64_t parallel_id, uint64_t task_id, uint64_t value, uint64_t aux) {
  if (recording())
    record_always(callback, endpoint, kind, codeptr_ra, parallel_id, task_id, value, aux);
}

/* A frequent event (COARSE_CALLBACKS): the coarse clock. */
static inline __attribute__((always_inline)) void record_coarse(uint16_t callback, uint16_t endpoint, uint32_t kind, const void *codeptr_ra,
                                 uint64_t parallel_id, uint64_t task_id, uint64_t value, uint64_t aux) {
  if (recording())
    record_at(coarse_ns(), callback, endpoint, kind, codeptr_ra, parallel_id, task_id, value, aux);
}

/* An event whose region record was just made: both carry the same time (one clock read, not two). */
static inline __attribute__((always_inline)) void record_region_event(const struct jompd_recorder_region *r, uint16_t callback,
                                       uint16_t endpoint, uint32_t kind, const void *codeptr_ra,
                                       uint64_t parallel_id, uint64_t task_id, uint64_t value, uint64_t aux) {
  if (recording())
    record_at(r ? r->begin_time_ns : now_ns(), callback, endpoint, kind, codeptr_ra, parallel_id, task_id,
              value, aux);
}

static inline uint64_t id_of(const ompt_data_t *data) {
  if (!data)
    return 0;
  if (data->value & TASK_ID_TAG)
    return data->value >> 1;
  const struct jompd_recorder_region *r = data->ptr;
  return r ? r->id : 0;
}

enum { POOL_CHUNK = 64, ID_BLOCK = 1024 };

/* A region record from this thread's pool: its own free list first, then everything other threads
 * gave back (taken in one exchange, so the stack has a single popper and no ABA), then a new chunk.
 * No malloc/free per region, and no free() of memory another thread allocated. */
static struct jompd_recorder_region *pool_take(struct jompd_recorder_thread *t) {
  struct jompd_recorder_region *r = t->pool_local;
  if (!r)
    r = __atomic_exchange_n(&t->pool_returned, NULL, __ATOMIC_ACQUIRE);
  if (!r) {
    struct jompd_recorder_region *chunk = malloc(POOL_CHUNK * sizeof *chunk);
    if (!chunk)
      return NULL;
    for (int i = 0; i < POOL_CHUNK; i++) {
      chunk[i].owner = t;
      chunk[i].next_free = i + 1 < POOL_CHUNK ? &chunk[i + 1] : NULL;
    }
    r = chunk;
  }
  t->pool_local = r->next_free;
  return r;
}

/* A record goes back to the pool of the thread that made it (parallel regions and implicit tasks end
 * on the thread that began them, so this is nearly always a push onto this thread's own list). */
static inline __attribute__((always_inline)) void pool_give_back(struct jompd_recorder_region *r) {
  struct jompd_recorder_thread *owner = r->owner;
  r->id = 0; /* a reader following a stale tool-data pointer sees no region, not a wrong one */
  if (owner == self) {
    r->next_free = owner->pool_local;
    owner->pool_local = r;
    return;
  }
  struct jompd_recorder_region *head = __atomic_load_n(&owner->pool_returned, __ATOMIC_RELAXED);
  do {
    r->next_free = head;
  } while (!__atomic_compare_exchange_n(&owner->pool_returned, &head, r, 1, __ATOMIC_RELEASE,
                                        __ATOMIC_RELAXED));
}

/* Ids come from the global counter in blocks: one atomic per ID_BLOCK regions of a thread. */
static inline uint64_t thread_new_id(struct jompd_recorder_thread *t) {
  if (t->next_id == t->last_id) {
    t->next_id = __atomic_fetch_add(&next_id, ID_BLOCK, __ATOMIC_RELAXED);
    t->last_id = t->next_id + ID_BLOCK;
  }
  return t->next_id++;
}

static inline __attribute__((always_inline)) struct jompd_recorder_region *new_region(ompt_data_t *data, const void *codeptr_ra, uint64_t flags,
                                                uint64_t parent, uint64_t parallelism) {
  struct jompd_recorder_thread *t = thread_record();
  struct jompd_recorder_region *r = t ? pool_take(t) : NULL;
  if (!r) {
    data->ptr = NULL;
    return NULL;
  }
  r->id = thread_new_id(t);
  r->codeptr_ra = (uint64_t)(uintptr_t)codeptr_ra;
  r->begin_time_ns = now_ns();
  r->flags = flags;
  r->parent_task_id = parent;
  r->parallelism = parallelism;
  data->ptr = r;
  return r;
}

static inline __attribute__((always_inline)) void free_region(ompt_data_t *data) {
  if (data && data->ptr && !(data->value & TASK_ID_TAG)) {
    pool_give_back(data->ptr);
    data->ptr = NULL;
  }
}

/* ---- host callbacks -------------------------------------------------------------------- */

static void on_thread_begin(ompt_thread_t type, ompt_data_t *thread_data) {
  struct jompd_recorder_thread *t = thread_record();
  if (t) {
    t->thread_type = (uint32_t)type;
    thread_data->ptr = t;
  }
  record(ompt_callback_thread_begin, 0, type, NULL, 0, 0, 0, 0);
}

static void on_thread_end(ompt_data_t *thread_data) {
  (void)thread_data;
  record(ompt_callback_thread_end, 0, 0, NULL, 0, 0, 0, 0);
  struct jompd_recorder_thread *t = self;
  if (t) {
    t->end_time_ns = now_ns();
    t->ended = 1; /* the record stays on the list: a core shows what ended threads did last */
  }
}

static void on_parallel_begin(ompt_data_t *encountering_task_data, const ompt_frame_t *frame,
                              ompt_data_t *parallel_data, unsigned int requested, int flags,
                              const void *codeptr_ra) {
  (void)frame;
  uint64_t parent = id_of(encountering_task_data);
  struct jompd_recorder_region *r = new_region(parallel_data, codeptr_ra, (uint64_t)flags, parent, requested);
  record_region_event(r, ompt_callback_parallel_begin, ompt_scope_begin, (uint32_t)flags, codeptr_ra, r ? r->id : 0,
         parent, requested, 0);
}

static void on_parallel_end(ompt_data_t *parallel_data, ompt_data_t *encountering_task_data,
                            int flags, const void *codeptr_ra) {
  record(ompt_callback_parallel_end, ompt_scope_end, (uint32_t)flags, codeptr_ra, id_of(parallel_data),
         id_of(encountering_task_data), 0, 0);
  free_region(parallel_data);
}

static void on_task_create(ompt_data_t *encountering_task_data, const ompt_frame_t *frame,
                           ompt_data_t *new_task_data, int flags, int has_dependences,
                           const void *codeptr_ra) {
  (void)frame, (void)has_dependences;
  uint64_t parent = id_of(encountering_task_data);
  struct jompd_recorder_thread *t = thread_record();
  uint64_t id = t ? thread_new_id(t) : 0;
  new_task_data->value = id ? id << 1 | TASK_ID_TAG : 0;
  record_coarse(ompt_callback_task_create, 0, (uint32_t)flags, codeptr_ra, 0, id, parent, 0);
}

static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_status,
                             ompt_data_t *next_task_data) {
  record_coarse(ompt_callback_task_schedule, 0, (uint32_t)prior_status, NULL, 0, id_of(prior_task_data),
         id_of(next_task_data), 0);
  /* An explicit task's record goes with its completion; implicit ones go at implicit_task end. */
  if (prior_status == ompt_task_complete || prior_status == ompt_task_late_fulfill)
    free_region(prior_task_data);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                             ompt_data_t *task_data, unsigned int actual_parallelism,
                             unsigned int index, int flags) {
  uint64_t aux = ((uint64_t)actual_parallelism << 32) | index;
  if (endpoint == ompt_scope_begin) {
    struct jompd_recorder_region *r =
        new_region(task_data, NULL, (uint64_t)flags, 0, actual_parallelism);
    record_region_event(r, ompt_callback_implicit_task, endpoint, (uint32_t)flags, NULL,
                        id_of(parallel_data), r ? r->id : 0, 0, aux);
  } else {
    record(ompt_callback_implicit_task, endpoint, (uint32_t)flags, NULL, id_of(parallel_data),
           id_of(task_data), 0, aux);
    free_region(task_data);
  }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr_ra) {
  record(ompt_callback_sync_region, endpoint, kind, codeptr_ra, id_of(parallel_data), id_of(task_data),
         0, 0);
}

static void on_sync_region_wait(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                                ompt_data_t *parallel_data, ompt_data_t *task_data,
                                const void *codeptr_ra) {
  record(ompt_callback_sync_region_wait, endpoint, kind, codeptr_ra, id_of(parallel_data),
         id_of(task_data), 0, 0);
}

static void on_reduction(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                         ompt_data_t *parallel_data, ompt_data_t *task_data, const void *codeptr_ra) {
  record(ompt_callback_reduction, endpoint, kind, codeptr_ra, id_of(parallel_data), id_of(task_data), 0,
         0);
}

static void on_work(ompt_work_t work_type, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data,
                    ompt_data_t *task_data, uint64_t count, const void *codeptr_ra) {
  record(ompt_callback_work, endpoint, work_type, codeptr_ra, id_of(parallel_data), id_of(task_data),
         count, 0);
}

static void on_dispatch(ompt_data_t *parallel_data, ompt_data_t *task_data, ompt_dispatch_t kind,
                        ompt_data_t instance) {
  record_coarse(ompt_callback_dispatch, 0, kind, NULL, id_of(parallel_data), id_of(task_data), instance.value, 0);
}

static void on_masked(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel_data, ompt_data_t *task_data,
                      const void *codeptr_ra) {
  record(ompt_callback_masked, endpoint, 0, codeptr_ra, id_of(parallel_data), id_of(task_data), 0, 0);
}

/* Mutexes: the held set and the waiting slot are kept whatever the monitoring state, so that lock
 * holders stay right after a pause; only the events obey monitoring. */
static void on_mutex_acquire(ompt_mutex_t kind, unsigned int hint, unsigned int impl,
                             ompt_wait_id_t wait_id, const void *codeptr_ra) {
  (void)hint;
  struct jompd_recorder_thread *t = thread_record();
  /* One clock read for the waiting slot and the event: a reader shows them as one moment. */
  uint64_t now = now_ns();
  if (t) {
    t->waiting.wait_id = wait_id;
    t->waiting.codeptr_ra = (uint64_t)(uintptr_t)codeptr_ra;
    t->waiting.time_ns = now;
    __atomic_store_n(&t->waiting.kind, (uint64_t)kind, __ATOMIC_RELEASE);
  }
  if (recording())
    record_at(now, ompt_callback_mutex_acquire, 0, kind, codeptr_ra, 0, 0, wait_id, impl);
}

static void on_mutex_acquired(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  struct jompd_recorder_thread *t = thread_record();
  uint64_t now = now_ns(); /* the held entry's time and the event's: one moment */
  if (t) {
    __atomic_store_n(&t->waiting.kind, 0, __ATOMIC_RELEASE);
    if (t->held_count < JOMPD_RECORDER_HELD_MAX) {
      struct jompd_recorder_mutex *m = &t->held[t->held_count];
      m->kind = kind;
      m->wait_id = wait_id;
      m->codeptr_ra = (uint64_t)(uintptr_t)codeptr_ra;
      m->time_ns = now;
      __atomic_store_n(&t->held_count, t->held_count + 1, __ATOMIC_RELEASE);
    } else {
      t->held_overflow++;
    }
  }
  if (recording())
    record_at(now, ompt_callback_mutex_acquired, 0, kind, codeptr_ra, 0, 0, wait_id, 0);
}

static void on_mutex_released(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  struct jompd_recorder_thread *t = thread_record();
  if (t) {
    uint64_t n = t->held_count;
    uint64_t i = n;
    while (i > 0 && !(t->held[i - 1].wait_id == wait_id && t->held[i - 1].kind == (uint64_t)kind))
      i--;
    if (i > 0) {
      for (uint64_t j = i; j < n; j++)
        t->held[j - 1] = t->held[j];
      __atomic_store_n(&t->held_count, n - 1, __ATOMIC_RELEASE);
    } else if (t->held_overflow > 0) {
      t->held_overflow--;
    }
  }
  record(ompt_callback_mutex_released, 0, kind, codeptr_ra, 0, 0, wait_id, 0);
}

static void on_lock_init(ompt_mutex_t kind, unsigned int hint, unsigned int impl, ompt_wait_id_t wait_id,
                         const void *codeptr_ra) {
  (void)hint;
  record(ompt_callback_lock_init, 0, kind, codeptr_ra, 0, 0, wait_id, impl);
}

static void on_lock_destroy(ompt_mutex_t kind, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  record(ompt_callback_lock_destroy, 0, kind, codeptr_ra, 0, 0, wait_id, 0);
}

static void on_nest_lock(ompt_scope_endpoint_t endpoint, ompt_wait_id_t wait_id, const void *codeptr_ra) {
  record(ompt_callback_nest_lock, endpoint, ompt_mutex_nest_lock, codeptr_ra, 0, 0, wait_id, 0);
}

static void on_flush(ompt_data_t *thread_data, const void *codeptr_ra) {
  (void)thread_data;
  record(ompt_callback_flush, 0, 0, codeptr_ra, 0, 0, 0, 0);
}

static void on_cancel(ompt_data_t *task_data, int flags, const void *codeptr_ra) {
  record(ompt_callback_cancel, 0, (uint32_t)flags, codeptr_ra, 0, id_of(task_data), 0, 0);
}

static void on_dependences(ompt_data_t *task_data, const ompt_dependence_t *deps, int ndeps) {
  (void)deps;
  record_coarse(ompt_callback_dependences, 0, 0, NULL, 0, id_of(task_data), (uint64_t)ndeps, 0);
}

static void on_task_dependence(ompt_data_t *src_task_data, ompt_data_t *sink_task_data) {
  record_coarse(ompt_callback_task_dependence, 0, 0, NULL, 0, id_of(src_task_data), id_of(sink_task_data), 0);
}

static void on_error(ompt_severity_t severity, const char *message, size_t length,
                     const void *codeptr_ra) {
  (void)message, (void)length;
  record(ompt_callback_error, 0, severity, codeptr_ra, 0, 0, 0, 0);
}

/* ---- omp_control_tool (OpenMP 5.1 §3.14) -------------------------------------------------- */

static void copy_text(char *to, const void *from) {
  to[0] = '\0';
  if (from) {
    strncpy(to, from, JOMPD_RECORDER_TEXT - 1);
    to[JOMPD_RECORDER_TEXT - 1] = '\0';
  }
}

static void add_mark(struct jompd_recorder_thread *t, uint64_t command, uint64_t modifier, const void *arg) {
  uint64_t n = __atomic_fetch_add(&state.mark_count, 1, __ATOMIC_RELAXED);
  struct jompd_recorder_mark *m = &state.marks[n % JOMPD_RECORDER_MARKS];
  __atomic_store_n(&m->seq, 0, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  m->time_ns = now_ns();
  m->thread_serial = t ? t->serial : UINT64_MAX;
  m->command = command;
  m->modifier = modifier;
  copy_text(m->text, arg);
  __atomic_store_n(&m->seq, n + 1, __ATOMIC_RELEASE);
}

static int answer(uint64_t command, uint64_t modifier, void *arg) {
  uint64_t monitoring = __atomic_load_n(&state.monitoring, __ATOMIC_ACQUIRE);
  if (monitoring == JOMPD_RECORDER_MONITORING_ENDED)
    return omp_control_tool_ignored; /* end is final: "any subsequent commands will be ignored" */
  switch (command) {
  case omp_control_tool_start:
    __atomic_store_n(&state.monitoring, JOMPD_RECORDER_MONITORING_ON, __ATOMIC_RELEASE);
    return omp_control_tool_success;
  case omp_control_tool_pause:
    __atomic_store_n(&state.monitoring, JOMPD_RECORDER_MONITORING_PAUSED, __ATOMIC_RELEASE);
    return omp_control_tool_success;
  case omp_control_tool_flush:
    /* Nothing is buffered outside the target's memory: make every store visible and say so. */
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    return omp_control_tool_success;
  case omp_control_tool_end:
    __atomic_store_n(&state.monitoring, JOMPD_RECORDER_MONITORING_ENDED, __ATOMIC_RELEASE);
    return omp_control_tool_success;
  case JOMPD_RECORDER_COMMAND_MARK:
    add_mark(thread_record(), command, modifier, arg);
    return omp_control_tool_success;
  case JOMPD_RECORDER_COMMAND_SNAPSHOT:
    add_mark(thread_record(), command, modifier, arg);
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    jompd_recorder_snapshot_point();
    return omp_control_tool_success;
  default:
    return omp_control_tool_ignored; /* a command this tool does not know */
  }
}

static int on_control_tool(uint64_t command, uint64_t modifier, void *arg, const void *codeptr_ra) {
  int result = answer(command, modifier, arg);

  struct jompd_recorder_thread *t = thread_record();
  uint64_t n = __atomic_fetch_add(&state.command_count, 1, __ATOMIC_RELAXED);
  struct jompd_recorder_command *c = &state.commands[n % JOMPD_RECORDER_COMMANDS];
  __atomic_store_n(&c->seq, 0, __ATOMIC_RELAXED);
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  c->time_ns = now_ns();
  c->thread_serial = t ? t->serial : UINT64_MAX;
  c->command = command;
  c->modifier = modifier;
  c->result = result;
  __atomic_store_n(&c->seq, n + 1, __ATOMIC_RELEASE);
  /* The command itself is an event even when monitoring is off (it is what turned it off). */
  record_always(ompt_callback_control_tool, 0, (uint32_t)command, codeptr_ra, 0, 0, modifier,
                (uint64_t)(int64_t)result);
  return result;
}

/* ---- devices ------------------------------------------------------------------------------ */

static ompt_set_trace_ompt_t set_trace_ompt;
static ompt_start_trace_t start_trace;
static ompt_advance_buffer_cursor_t advance_buffer_cursor;
static ompt_get_record_ompt_t get_record_ompt;
static ompt_translate_time_t translate_time;
static ompt_stop_trace_t stop_trace;
static ompt_flush_trace_t flush_trace;
static ompt_device_t *device_handles[JOMPD_RECORDER_DEVICES];

static struct jompd_recorder_device *device_slot(int device_num, int create) {
  for (int i = 0; i < JOMPD_RECORDER_DEVICES; i++) {
    struct jompd_recorder_device *d = &state.devices[i];
    int64_t num = __atomic_load_n(&d->device_num, __ATOMIC_ACQUIRE);
    if (num == device_num)
      return d;
    if (num == -1 && create) {
      int64_t expected = -1;
      if (__atomic_compare_exchange_n(&d->device_num, &expected, device_num, 0, __ATOMIC_ACQ_REL,
                                      __ATOMIC_ACQUIRE)) {
        __atomic_fetch_add(&state.device_count, 1, __ATOMIC_RELAXED);
        return d;
      }
      if (expected == device_num)
        return d;
    }
  }
  return NULL;
}

static void on_buffer_request(int device_num, ompt_buffer_t **buffer, size_t *bytes) {
  (void)device_num;
  *bytes = 64 * 1024;
  *buffer = malloc(*bytes);
  if (!*buffer)
    *bytes = 0;
}

static void on_buffer_complete(int device_num, ompt_buffer_t *buffer, size_t bytes,
                               ompt_buffer_cursor_t begin, int buffer_owned) {
  struct jompd_recorder_device *d = device_slot(device_num, 0);
  ompt_device_t *device = d ? device_handles[d - state.devices] : NULL;
  ompt_buffer_cursor_t cursor = begin;
  for (int guard = 0; d && bytes > 0 && guard < 1000000; guard++) {
    ompt_record_ompt_t *r = get_record_ompt(buffer, cursor);
    if (!r)
      break;
    uint64_t n = d->trace_records++;
    struct jompd_recorder_trace_record *out = &d->trace[n % JOMPD_RECORDER_DEVICE_TRACE];
    out->type = (uint64_t)r->type;
    out->device_time = r->time;
    out->host_time_ns = translate_time ? (uint64_t)(translate_time(device, r->time) * 1e9) : 0;
    out->target_id = r->target_id;
    ompt_buffer_cursor_t next;
    if (advance_buffer_cursor(device, buffer, bytes, cursor, &next) == 0)
      break;
    cursor = next;
  }
  if (buffer_owned)
    free(buffer);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
                                 ompt_function_lookup_t lookup, const char *documentation) {
  (void)documentation;
  struct jompd_recorder_device *d = device_slot(device_num, 1);
  record_always(ompt_callback_device_initialize, 0, 0, NULL, 0, 0, 0, (uint64_t)(int64_t)device_num);
  if (!d)
    return;
  d->initialize_time_ns = now_ns();
  copy_text(d->type, NULL);
  if (type) {
    strncpy(d->type, type, sizeof d->type - 1);
    d->type[sizeof d->type - 1] = '\0';
  }
  device_handles[d - state.devices] = device;
  uint64_t found = 0;
  if (lookup) {
    static const struct {
      const char *name;
      uint64_t bit;
    } entry_points[] = {
        {"ompt_set_trace_ompt", JOMPD_RECORDER_EP_SET_TRACE_OMPT},
        {"ompt_start_trace", JOMPD_RECORDER_EP_START_TRACE},
        {"ompt_pause_trace", JOMPD_RECORDER_EP_PAUSE_TRACE},
        {"ompt_flush_trace", JOMPD_RECORDER_EP_FLUSH_TRACE},
        {"ompt_stop_trace", JOMPD_RECORDER_EP_STOP_TRACE},
        {"ompt_advance_buffer_cursor", JOMPD_RECORDER_EP_ADVANCE_BUFFER_CURSOR},
        {"ompt_get_record_ompt", JOMPD_RECORDER_EP_GET_RECORD_OMPT},
        {"ompt_get_device_time", JOMPD_RECORDER_EP_GET_DEVICE_TIME},
        {"ompt_translate_time", JOMPD_RECORDER_EP_TRANSLATE_TIME},
        {"ompt_get_record_type", JOMPD_RECORDER_EP_GET_RECORD_TYPE},
    };
    for (size_t i = 0; i < sizeof entry_points / sizeof entry_points[0]; i++)
      if (lookup(entry_points[i].name))
        found |= entry_points[i].bit;
    set_trace_ompt = (ompt_set_trace_ompt_t)lookup("ompt_set_trace_ompt");
    start_trace = (ompt_start_trace_t)lookup("ompt_start_trace");
    advance_buffer_cursor = (ompt_advance_buffer_cursor_t)lookup("ompt_advance_buffer_cursor");
    get_record_ompt = (ompt_get_record_ompt_t)lookup("ompt_get_record_ompt");
    translate_time = (ompt_translate_time_t)lookup("ompt_translate_time");
    stop_trace = (ompt_stop_trace_t)lookup("ompt_stop_trace");
    flush_trace = (ompt_flush_trace_t)lookup("ompt_flush_trace");
  }
  d->entry_points = found;
  if (!set_trace_ompt || !start_trace || !advance_buffer_cursor || !get_record_ompt) {
    d->tracing = JOMPD_RECORDER_TRACING_UNAVAILABLE;
    return;
  }
  set_trace_ompt(device, 1, 0); /* every event type */
  d->tracing = start_trace(device, on_buffer_request, on_buffer_complete)
                   ? JOMPD_RECORDER_TRACING_STARTED
                   : JOMPD_RECORDER_TRACING_FAILED;
}

static void on_device_finalize(int device_num) {
  struct jompd_recorder_device *d = device_slot(device_num, 0);
  record_always(ompt_callback_device_finalize, 0, 0, NULL, 0, 0, 0, (uint64_t)(int64_t)device_num);
  if (!d)
    return;
  if (d->tracing == JOMPD_RECORDER_TRACING_STARTED) {
    ompt_device_t *device = device_handles[d - state.devices];
    if (flush_trace)
      flush_trace(device);
    if (stop_trace)
      stop_trace(device);
    d->tracing = JOMPD_RECORDER_TRACING_STOPPED;
  }
  d->finalize_time_ns = now_ns();
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
                           void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
                           uint64_t module_id) {
  (void)filename, (void)offset_in_file, (void)vma_in_file, (void)host_addr, (void)device_addr;
  struct jompd_recorder_device *d = device_slot(device_num, 1);
  if (d) {
    d->loads++;
    d->load_bytes += bytes;
  }
  record_always(ompt_callback_device_load, 0, 0, NULL, 0, 0, bytes, (uint64_t)(int64_t)device_num);
  (void)module_id;
}

static void on_device_unload(int device_num, uint64_t module_id) {
  record_always(ompt_callback_device_unload, 0, 0, NULL, 0, 0, module_id, (uint64_t)(int64_t)device_num);
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                      ompt_data_t *task_data, ompt_id_t target_id, const void *codeptr_ra) {
  record(ompt_callback_target, endpoint, kind, codeptr_ra, 0, id_of(task_data), target_id,
         (uint64_t)(int64_t)device_num);
}

static void on_target_emi(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
                          ompt_data_t *task_data, ompt_data_t *target_task_data,
                          ompt_data_t *target_data, const void *codeptr_ra) {
  (void)target_task_data;
  if (endpoint == ompt_scope_begin && target_data)
    target_data->value = new_id();
  record(ompt_callback_target_emi, endpoint, kind, codeptr_ra, 0, id_of(task_data),
         target_data ? target_data->value : 0, (uint64_t)(int64_t)device_num);
}

static void on_target_data_op(ompt_id_t target_id, ompt_id_t host_op_id, ompt_target_data_op_t optype,
                              void *src_addr, int src_device_num, void *dest_addr, int dest_device_num,
                              size_t bytes, const void *codeptr_ra) {
  (void)host_op_id, (void)src_addr, (void)src_device_num, (void)dest_addr;
  record(ompt_callback_target_data_op, 0, optype, codeptr_ra, 0, target_id, bytes,
         (uint64_t)(int64_t)dest_device_num);
}

static void on_target_data_op_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
                                  ompt_data_t *target_data, ompt_id_t *host_op_id,
                                  ompt_target_data_op_t optype, void *src_addr, int src_device_num,
                                  void *dest_addr, int dest_device_num, size_t bytes,
                                  const void *codeptr_ra) {
  (void)target_task_data, (void)host_op_id, (void)src_addr, (void)src_device_num, (void)dest_addr;
  record(ompt_callback_target_data_op_emi, endpoint, optype, codeptr_ra, 0,
         target_data ? target_data->value : 0, bytes, (uint64_t)(int64_t)dest_device_num);
}

static void on_target_submit(ompt_id_t target_id, ompt_id_t host_op_id, unsigned int requested_num_teams) {
  (void)host_op_id;
  record(ompt_callback_target_submit, 0, 0, NULL, 0, target_id, requested_num_teams, 0);
}

static void on_target_submit_emi(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
                                 ompt_id_t *host_op_id, unsigned int requested_num_teams) {
  (void)host_op_id;
  record(ompt_callback_target_submit_emi, endpoint, 0, NULL, 0, target_data ? target_data->value : 0,
         requested_num_teams, 0);
}

static void on_target_map(ompt_id_t target_id, unsigned int nitems, void **host_addr, void **device_addr,
                          size_t *bytes, unsigned int *mapping_flags, const void *codeptr_ra) {
  (void)host_addr, (void)device_addr, (void)bytes, (void)mapping_flags;
  record(ompt_callback_target_map, 0, 0, codeptr_ra, 0, target_id, nitems, 0);
}

static void on_target_map_emi(ompt_data_t *target_data, unsigned int nitems, void **host_addr,
                              void **device_addr, size_t *bytes, unsigned int *mapping_flags,
                              const void *codeptr_ra) {
  (void)host_addr, (void)device_addr, (void)bytes, (void)mapping_flags;
  record(ompt_callback_target_map_emi, 0, 0, codeptr_ra, 0, target_data ? target_data->value : 0, nitems,
         0);
}

/* ---- start-up ------------------------------------------------------------------------------ */

static uint64_t ring_capacity_from_environment(void) {
  uint64_t wanted = 1024;
  const char *text = getenv("JOMPD_RECORDER_EVENTS");
  if (text && *text) {
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (*end == '\0' && v > 0)
      wanted = v;
    else
      fprintf(stderr, "jompd-recorder: JOMPD_RECORDER_EVENTS=%s is not a positive number; using %llu\n",
              text, (unsigned long long)wanted);
  }
  if (wanted < 16)
    wanted = 16;
  if (wanted > (1u << 20))
    wanted = 1u << 20;
  uint64_t capacity = 16;
  while (capacity < wanted)
    capacity <<= 1;
  return capacity;
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data) {
  (void)initial_device_num, (void)tool_data;
  ompt_set_callback_t set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
  if (!set_callback)
    return 0;
#define REGISTER(callback, function)                                                                \
  state.registration[callback] = (int32_t)set_callback(callback, (ompt_callback_t)(function))
  /* Every callback of OpenMP 5.1 Table 4.2; each answer says whether this runtime reports it. */
  REGISTER(ompt_callback_thread_begin, on_thread_begin);
  REGISTER(ompt_callback_thread_end, on_thread_end);
  REGISTER(ompt_callback_parallel_begin, on_parallel_begin);
  REGISTER(ompt_callback_parallel_end, on_parallel_end);
  REGISTER(ompt_callback_task_create, on_task_create);
  REGISTER(ompt_callback_task_schedule, on_task_schedule);
  REGISTER(ompt_callback_implicit_task, on_implicit_task);
  REGISTER(ompt_callback_target, on_target);
  REGISTER(ompt_callback_target_data_op, on_target_data_op);
  REGISTER(ompt_callback_target_submit, on_target_submit);
  REGISTER(ompt_callback_control_tool, on_control_tool);
  REGISTER(ompt_callback_device_initialize, on_device_initialize);
  REGISTER(ompt_callback_device_finalize, on_device_finalize);
  REGISTER(ompt_callback_device_load, on_device_load);
  REGISTER(ompt_callback_device_unload, on_device_unload);
  REGISTER(ompt_callback_sync_region_wait, on_sync_region_wait);
  REGISTER(ompt_callback_mutex_released, on_mutex_released);
  REGISTER(ompt_callback_dependences, on_dependences);
  REGISTER(ompt_callback_task_dependence, on_task_dependence);
  REGISTER(ompt_callback_work, on_work);
  REGISTER(ompt_callback_masked, on_masked);
  REGISTER(ompt_callback_target_map, on_target_map);
  REGISTER(ompt_callback_sync_region, on_sync_region);
  REGISTER(ompt_callback_lock_init, on_lock_init);
  REGISTER(ompt_callback_lock_destroy, on_lock_destroy);
  REGISTER(ompt_callback_mutex_acquire, on_mutex_acquire);
  REGISTER(ompt_callback_mutex_acquired, on_mutex_acquired);
  REGISTER(ompt_callback_nest_lock, on_nest_lock);
  REGISTER(ompt_callback_flush, on_flush);
  REGISTER(ompt_callback_cancel, on_cancel);
  REGISTER(ompt_callback_reduction, on_reduction);
  REGISTER(ompt_callback_dispatch, on_dispatch);
  REGISTER(ompt_callback_target_emi, on_target_emi);
  REGISTER(ompt_callback_target_data_op_emi, on_target_data_op_emi);
  REGISTER(ompt_callback_target_submit_emi, on_target_submit_emi);
  REGISTER(ompt_callback_target_map_emi, on_target_map_emi);
  REGISTER(ompt_callback_error, on_error);
#undef REGISTER
  return 1; /* keep the tool */
}

static void finalize(ompt_data_t *tool_data) { (void)tool_data; }

EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime_version) {
  static ompt_start_tool_result_t result = {initialize, finalize, {0}};
  for (int i = 0; i < JOMPD_RECORDER_CALLBACKS; i++)
    state.registration[i] = -1;
  for (int i = 0; i < JOMPD_RECORDER_DEVICES; i++)
    state.devices[i].device_num = -1;
  state.ring_capacity = ring_capacity_from_environment();
  calibrate_clock();
  state.start_time_ns = state.clock_ticks0;
  state.omp_version = omp_version;
  if (runtime_version) {
    strncpy(state.runtime_version, runtime_version, sizeof state.runtime_version - 1);
    state.runtime_version[sizeof state.runtime_version - 1] = '\0';
  }
  __atomic_store_n(&state.monitoring, JOMPD_RECORDER_MONITORING_ON, __ATOMIC_RELEASE);
  return &result;
}
