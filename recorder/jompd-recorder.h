/*
 * jompd-recorder: an OMPT tool that keeps a flight record of what the OpenMP runtime did, laid out
 * so that a debugger can read it from a core file or a stopped process.
 *
 * Everything a reader needs is reachable from one exported symbol, jompd_recorder_descriptor:
 *
 *   descriptor: magic "jompd-recorder\0\0" (16 bytes), u32 version, u32 layout_count,
 *               layout (pointer to layout_count entries {char name[48]; u64 value}), state (pointer)
 *
 * The layout table describes every record below by name, like libomp's OMPD breadcrumbs:
 * "<type>.size" = sizeof(struct jompd_recorder_<type>), "<type>.<field>" = offsetof and
 * "<type>.<field>.size" = sizeof of the field, plus constants ("ring.capacity", "marks.capacity", ...).
 * A reader takes offsets from the table, never from this header; JOMPD_RECORDER_VERSION changes only
 * when the meaning of a field changes (a field added is a new table entry, not a new version).
 *
 * Concurrency: each thread writes only its own record and ring (single writer, no locks); threads
 * are pushed onto the global list with a compare-and-swap; marks and control commands take a slot
 * with an atomic fetch-add. A reader in a stopped process or core sees each event either complete
 * (its seq equals its position + 1) or not at all.
 */
#ifndef JOMPD_RECORDER_H
#define JOMPD_RECORDER_H

#include <stdint.h>

#define JOMPD_RECORDER_MAGIC "jompd-recorder"

/* Time: every *time_ns field holds ticks of the recorder's clock, state.clock_kind:
 *   1 CLOCK_MONOTONIC nanoseconds (ticks are nanoseconds),
 *   2 the x86-64 time-stamp counter (used when the kernel's clocksource is "tsc": constant and
 *     synchronised across CPUs; it costs a third of a clock_gettime on every event),
 * except the events of the callbacks in the layout constant "constant.coarse_callbacks" (a bit per
 * ompt_callbacks_t number: task_create, task_schedule, dispatch, dependences, task_dependence, the
 * ones a task- or chunk-heavy program sends millions of): those hold CLOCK_MONOTONIC_COARSE nanoseconds, the kernel's CLOCK_MONOTONIC at its last tick (at most
 * state.coarse_resolution_ns behind, clock_getres: 4 ms with HZ=250). Measured: the clock read was
 * nine tenths of the recorder's own cost per empty task; the coarse clock costs half a TSC read.
 * Nanoseconds of CLOCK_MONOTONIC = clock_ns0 + (ticks - clock_ticks0) * rate, the rate taken from
 * (clock_ticks0, clock_ns0) and the latest (ticks, ns) pair: state.clock_ticks1/ns1 (a 200 us
 * calibration at start-up) or a thread's clock_ticks/clock_ns[clock_slot] (taken when the thread
 * began, refreshed every 4096 events of that thread). */
#define JOMPD_RECORDER_CLOCK_MONOTONIC 1
#define JOMPD_RECORDER_CLOCK_TSC 2
#define JOMPD_RECORDER_CLOCK_MONOTONIC_COARSE 3
/* 2: the coarse clock of the events in "constant.coarse_callbacks", and explicit tasks' tool data holding
 * their id tagged ("constant.task_id_tag") instead of pointing to a region record (version 1 had neither). */
#define JOMPD_RECORDER_VERSION 2u

/* omp_control_tool commands of the tool (OpenMP 5.1 §3.14: tool-specific commands start at 64). */
#define JOMPD_RECORDER_COMMAND_MARK 64     /* arg: NUL-terminated message, or NULL (Fortran) */
#define JOMPD_RECORDER_COMMAND_SNAPSHOT 65 /* arg: optional message; stops at jompd_recorder_snapshot_point */

#define JOMPD_RECORDER_CALLBACKS 64   /* registration[] is indexed by ompt_callbacks_t */
#define JOMPD_RECORDER_HELD_MAX 16    /* mutexes one thread can be seen holding at once */
#define JOMPD_RECORDER_MARKS 64       /* the most recent marks and snapshots */
#define JOMPD_RECORDER_COMMANDS 64    /* the most recent omp_control_tool commands */
#define JOMPD_RECORDER_DEVICES 16     /* devices with a device_initialize */
#define JOMPD_RECORDER_DEVICE_TRACE 64 /* the most recent trace records per device */
#define JOMPD_RECORDER_TEXT 112       /* bytes of a mark's message (NUL included) */

/* One OMPT event. Field use by callback (ids are the recorder's own, 0 = none):
 *   callback   ompt_callbacks_t number;  endpoint: ompt_scope_endpoint_t where the callback has one
 *   kind       sync-region kind, work type, mutex kind, dispatch kind, task status (task_schedule),
 *              flags (parallel, task_create, implicit_task, cancel), thread type, target kind,
 *              control command, severity
 *   value      wait id (mutex, lock, nest_lock), count (work), requested parallelism (parallel_begin),
 *              next task id (task_schedule), encountering task id (task_create), modifier (control_tool),
 *              dispatch instance, target id (target), bytes (data op, device_load), ndeps, sink task id
 *   aux        device number (device and target callbacks), (actual parallelism << 32 | index)
 *              (implicit_task), impl (mutex_acquire), result (control_tool) */
struct jompd_recorder_event {
  uint64_t seq; /* position in the thread's event sequence + 1; 0 while the slot is written */
  uint64_t time_ns; /* recorder clock ticks (see "Time" below) */
  uint16_t callback;
  uint16_t endpoint;
  uint32_t kind;
  uint64_t codeptr_ra;
  uint64_t parallel_id;
  uint64_t task_id;
  uint64_t value;
  uint64_t aux;
};

/* A mutex (lock, nest lock, critical, ordered, ...) a thread holds or waits for. */
struct jompd_recorder_mutex {
  uint64_t kind; /* ompt_mutex_t; 0 = none */
  uint64_t wait_id;
  uint64_t codeptr_ra;
  uint64_t time_ns;
};

struct jompd_recorder_thread {
  struct jompd_recorder_thread *next; /* the global list, newest first */
  uint64_t serial;                    /* 0, 1, ... in thread_begin order */
  uint64_t pthread_id;                /* pthread_self(): fs_base on x86-64 glibc */
  uint64_t lwp;                       /* gettid() */
  uint32_t thread_type;               /* ompt_thread_t */
  uint32_t ended;
  uint64_t begin_time_ns;
  uint64_t end_time_ns;
  uint64_t capacity; /* slots in events[], a power of two */
  uint64_t head;     /* events written so far; the newest is events[(head - 1) % capacity] */
  struct jompd_recorder_event *events;
  uint64_t held_count; /* entries of held[] in use */
  uint64_t held_overflow;
  struct jompd_recorder_mutex held[JOMPD_RECORDER_HELD_MAX];
  struct jompd_recorder_mutex waiting; /* kind 0 = waiting for no mutex */
  /* Region records (parallel regions, implicit tasks) this thread made: free for reuse here, and given
   * back by other threads. */
  struct jompd_recorder_region *pool_local;
  struct jompd_recorder_region *pool_returned;
  uint64_t next_id, last_id; /* ids reserved for this thread: next_id .. last_id - 1 */
  uint64_t clock_slot;     /* which of the two (ticks, CLOCK_MONOTONIC ns) pairs below is current */
  uint64_t clock_ticks[2];
  uint64_t clock_ns[2];
};

/* What ompt_data_t.ptr of parallel regions and implicit tasks points to (ompd_get_tool_data leads here).
 * An explicit task's ompt_data_t.value is (id << 1) | 1 ("constant.task_id_tag", odd: never a record's
 * address): its id, as its task_create event and the events naming it carry it. */
struct jompd_recorder_region {
  uint64_t id;
  uint64_t codeptr_ra;
  uint64_t begin_time_ns;
  uint64_t flags;            /* parallel or task flags */
  uint64_t parent_task_id;   /* encountering task */
  uint64_t parallelism;      /* requested (parallel) or actual (implicit task) */
  /* The recorder's own bookkeeping (records are recycled through the creating thread's pool). */
  struct jompd_recorder_thread *owner;
  struct jompd_recorder_region *next_free;
};

struct jompd_recorder_mark {
  uint64_t seq; /* 1-based mark number; 0 while the slot is written */
  uint64_t time_ns;
  uint64_t thread_serial;
  uint64_t command; /* JOMPD_RECORDER_COMMAND_MARK or _SNAPSHOT */
  uint64_t modifier;
  char text[JOMPD_RECORDER_TEXT];
};

struct jompd_recorder_command {
  uint64_t seq; /* 1-based; 0 while the slot is written */
  uint64_t time_ns;
  uint64_t thread_serial;
  uint64_t command;
  uint64_t modifier;
  int64_t result; /* what the tool answered: omp_control_tool_result_t or a tool value > 64 */
};

struct jompd_recorder_trace_record {
  uint64_t type;       /* ompt_callbacks_t of the device record */
  uint64_t device_time;
  uint64_t host_time_ns; /* ompt_translate_time; 0 when not translatable */
  uint64_t target_id;
};

/* Tracing status of a device. */
#define JOMPD_RECORDER_TRACING_UNAVAILABLE 1 /* the lookup offers no ompt_start_trace (or no set_trace_ompt) */
#define JOMPD_RECORDER_TRACING_STARTED 2
#define JOMPD_RECORDER_TRACING_FAILED 3      /* ompt_start_trace answered 0 */
#define JOMPD_RECORDER_TRACING_STOPPED 4

/* Bits of entry_points: which device tracing entry points the device's lookup returned. */
#define JOMPD_RECORDER_EP_SET_TRACE_OMPT (1u << 0)
#define JOMPD_RECORDER_EP_START_TRACE (1u << 1)
#define JOMPD_RECORDER_EP_PAUSE_TRACE (1u << 2)
#define JOMPD_RECORDER_EP_FLUSH_TRACE (1u << 3)
#define JOMPD_RECORDER_EP_STOP_TRACE (1u << 4)
#define JOMPD_RECORDER_EP_ADVANCE_BUFFER_CURSOR (1u << 5)
#define JOMPD_RECORDER_EP_GET_RECORD_OMPT (1u << 6)
#define JOMPD_RECORDER_EP_GET_DEVICE_TIME (1u << 7)
#define JOMPD_RECORDER_EP_TRANSLATE_TIME (1u << 8)
#define JOMPD_RECORDER_EP_GET_RECORD_TYPE (1u << 9)

struct jompd_recorder_device {
  int64_t device_num; /* -1: slot unused */
  char type[48];
  uint64_t initialize_time_ns;
  uint64_t finalize_time_ns; /* 0 while not finalized */
  uint64_t loads;
  uint64_t load_bytes;
  uint64_t entry_points; /* JOMPD_RECORDER_EP_* */
  uint64_t tracing;      /* JOMPD_RECORDER_TRACING_* */
  uint64_t trace_records; /* records received so far */
  struct jompd_recorder_trace_record trace[JOMPD_RECORDER_DEVICE_TRACE];
};

/* Monitoring state driven by omp_control_tool (OpenMP 5.1 §3.14). */
#define JOMPD_RECORDER_MONITORING_ON 1
#define JOMPD_RECORDER_MONITORING_PAUSED 2
#define JOMPD_RECORDER_MONITORING_ENDED 3 /* final: every later command answers ignored */

struct jompd_recorder_state {
  struct jompd_recorder_thread *threads; /* list head, newest first */
  uint64_t thread_count;
  uint64_t ring_capacity;
  uint64_t monitoring;
  uint64_t start_time_ns;
  uint64_t clock_kind;
  uint64_t clock_ticks0, clock_ns0; /* at start-up */
  uint64_t clock_ticks1, clock_ns1; /* the latest global pair */
  uint64_t coarse_resolution_ns;    /* clock_getres(CLOCK_MONOTONIC_COARSE) */
  uint64_t omp_version; /* what ompt_start_tool was given */
  char runtime_version[64];
  int32_t registration[JOMPD_RECORDER_CALLBACKS]; /* ompt_set_result_t per callback; -1 not tried */
  uint64_t mark_count;
  struct jompd_recorder_mark marks[JOMPD_RECORDER_MARKS];
  uint64_t command_count;
  struct jompd_recorder_command commands[JOMPD_RECORDER_COMMANDS];
  uint64_t device_count;
  struct jompd_recorder_device devices[JOMPD_RECORDER_DEVICES];
};

struct jompd_recorder_layout_entry {
  char name[48];
  uint64_t value;
};

struct jompd_recorder_descriptor {
  char magic[16];
  uint32_t version;
  uint32_t layout_count;
  struct jompd_recorder_layout_entry *layout;
  struct jompd_recorder_state *state;
};

extern struct jompd_recorder_descriptor jompd_recorder_descriptor;

/* Called (and returns at once) after each "snapshot" command: a place for a debugger's breakpoint. */
void jompd_recorder_snapshot_point(void);

#endif
