/*
 * ompd_target (--pid PID | --core CORE --exe EXE) LIBRARY -- an OMPD client with no debugger that inspects
 * ANOTHER process: a live one (every thread stopped with ptrace) or a core file, through one OMPD library.
 *
 * Callbacks: memory from /proc/PID/mem (live) or the core's PT_LOAD segments, falling back to the mapped files
 * (NT_FILE) for what the core left out; modules from /proc/PID/maps or NT_FILE, symbols from their ELF symbol
 * tables; threads from /proc/PID/task or NT_PRSTATUS, registers from PTRACE_GETREGS or NT_PRSTATUS; a
 * thread-local symbol (libomp's __kmp_gtid) through glibc's libthread_db (td_thr_tls_get_addr over the
 * dynamic linker's link map), whose proc_service callbacks this program provides over the same target.
 * Nothing of the target is written.
 *
 * It walks every routine over every handle it can reach: the address space, each OS thread's thread handle,
 * every parallel region and task reachable from those (enclosing, members, generating, scheduling, ...), every
 * ICV at its scope with both forms, and calls with bad arguments. The transcript is canonical: no addresses.
 * Regions and tasks are named P<n>/T<n> in the order they are first met (handles compared with the library's
 * own *_handle_compare), threads t<k> by their place in the LWP order; code addresses as symbol+offset, stack
 * addresses from the top of the thread's stack mapping, other addresses H<n> in order of appearance.
 * Lines: "THREAD t<k> lwp <lwp>" (the target), "R key rc value" (the library's answers), "DONE".
 *
 * OMPD_TARGET_API: the api version given to ompd_initialize (default 201811, what LLVM's gdb plugin asks).
 */
#define _GNU_SOURCE
#include <omp-tools.h>

#include <dirent.h>
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <proc_service.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/procfs.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <thread_db.h>
#include <unistd.h>

#define MAX_THREADS 4096
#define MAX_MODULES 256
#define MAX_SEGMENTS 8192
#define MAX_REGIONS 512
#define MAX_TASKS 1024
#define MAX_OTHER 4096

static void die(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "ompd_target: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  exit(2);
}

/* ---- the target ---- */

struct thread {
  pid_t lwp;
  struct user_regs_struct regs;
  int attached;
  uint64_t stack_low, stack_high; /* the mapping its stack pointer is in */
};
struct module {
  char path[PATH_MAX];
  uint64_t bias, low, high; /* load bias, lowest and highest address of its PT_LOADs */
  unsigned char *file;
  size_t size;
  uint64_t link_map; /* its link_map in the target (for libthread_db), 0 if not known */
};
struct segment { uint64_t start, end, offset, file_size; };
struct file_map { uint64_t start, end, offset; char path[PATH_MAX]; };

static pid_t target_pid;
static int memory_fd = -1;
static unsigned char *core;
static size_t core_size;
static struct segment segments[MAX_SEGMENTS];
static int segment_count;
static struct file_map file_maps[MAX_SEGMENTS];
static int file_map_count;
static struct thread threads[MAX_THREADS];
static int thread_count;
static struct module modules[MAX_MODULES];
static int module_count;

static unsigned char *map_file(const char *path, size_t *size) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return NULL;
  struct stat st;
  if (fstat(fd, &st) != 0 || st.st_size == 0) {
    close(fd);
    return NULL;
  }
  void *p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (p == MAP_FAILED)
    return NULL;
  *size = st.st_size;
  return p;
}

/* reads n bytes at address from the core: its segments, else the file a read-only segment maps */
static int core_read(uint64_t address, size_t n, void *out) {
  unsigned char *buffer = out;
  while (n > 0) {
    size_t done = 0;
    for (int i = 0; i < segment_count && !done; i++) {
      struct segment *s = &segments[i];
      if (address < s->start || address >= s->start + s->file_size)
        continue;
      done = s->start + s->file_size - address;
      if (done > n)
        done = n;
      if (s->offset + (address - s->start) + done > core_size)
        return -1;
      memcpy(buffer, core + s->offset + (address - s->start), done);
    }
    for (int i = 0; i < file_map_count && !done; i++) {
      struct file_map *m = &file_maps[i];
      if (address < m->start || address >= m->end)
        continue;
      done = m->end - address;
      if (done > n)
        done = n;
      int fd = open(m->path, O_RDONLY | O_CLOEXEC);
      if (fd < 0)
        return -1;
      ssize_t got = pread(fd, buffer, done, m->offset + (address - m->start));
      close(fd);
      if (got != (ssize_t)done)
        return -1;
    }
    if (!done)
      return -1;
    buffer += done;
    address += done;
    n -= done;
  }
  return 0;
}

static int target_read(uint64_t address, size_t n, void *out) {
  if (core)
    return core_read(address, n, out);
  return pread(memory_fd, out, n, (off_t)address) == (ssize_t)n ? 0 : -1;
}

static void add_module(const char *path, uint64_t start) {
  for (int i = 0; i < module_count; i++)
    if (strcmp(modules[i].path, path) == 0)
      return;
  if (module_count == MAX_MODULES)
    return;
  struct module *m = &modules[module_count];
  snprintf(m->path, sizeof m->path, "%s", path);
  m->file = map_file(path, &m->size);
  if (!m->file || m->size < sizeof(Elf64_Ehdr) || memcmp(m->file, ELFMAG, SELFMAG) != 0)
    return;
  Elf64_Ehdr *eh = (Elf64_Ehdr *)m->file;
  Elf64_Phdr *ph = (Elf64_Phdr *)(m->file + eh->e_phoff);
  uint64_t first = UINT64_MAX, low = UINT64_MAX, high = 0;
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type != PT_LOAD)
      continue;
    if (first == UINT64_MAX)
      first = ph[i].p_vaddr & ~(uint64_t)0xfff;
    if (ph[i].p_vaddr < low)
      low = ph[i].p_vaddr;
    if (ph[i].p_vaddr + ph[i].p_memsz > high)
      high = ph[i].p_vaddr + ph[i].p_memsz;
  }
  if (first == UINT64_MAX)
    return;
  m->bias = start - first;
  m->low = m->bias + low;
  m->high = m->bias + high;
  module_count++;
}

/* ---- ELF symbols ---- */

struct found { uint64_t value; int tls; struct module *module; };

static int find_symbol(const char *name, struct found *out) {
  for (int k = 0; k < module_count; k++) {
    struct module *m = &modules[k];
    Elf64_Ehdr *eh = (Elf64_Ehdr *)m->file;
    Elf64_Shdr *sections = (Elf64_Shdr *)(m->file + eh->e_shoff);
    for (int pass = 0; pass < 2; pass++) {
      for (int i = 0; i < eh->e_shnum; i++) {
        if (sections[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
          continue;
        Elf64_Sym *symbols = (Elf64_Sym *)(m->file + sections[i].sh_offset);
        const char *names = (const char *)(m->file + sections[sections[i].sh_link].sh_offset);
        size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
        for (size_t s = 0; s < count; s++) {
          if (symbols[s].st_shndx == SHN_UNDEF || strcmp(names + symbols[s].st_name, name) != 0)
            continue;
          out->tls = ELF64_ST_TYPE(symbols[s].st_info) == STT_TLS;
          out->value = out->tls ? symbols[s].st_value : m->bias + symbols[s].st_value;
          out->module = m;
          return 1;
        }
      }
    }
  }
  return 0;
}

/* the function or object symbol at or below address, as name+0xoffset (the module's name if none) */
static void describe_code(uint64_t address, char *out, size_t size) {
  for (int k = 0; k < module_count; k++) {
    struct module *m = &modules[k];
    if (address < m->low || address >= m->high)
      continue;
    Elf64_Ehdr *eh = (Elf64_Ehdr *)m->file;
    Elf64_Shdr *sections = (Elf64_Shdr *)(m->file + eh->e_shoff);
    const char *best = NULL;
    uint64_t best_value = 0;
    for (int pass = 0; pass < 2 && !best; pass++) {
      for (int i = 0; i < eh->e_shnum; i++) {
        if (sections[i].sh_type != (pass == 0 ? SHT_SYMTAB : SHT_DYNSYM))
          continue;
        Elf64_Sym *symbols = (Elf64_Sym *)(m->file + sections[i].sh_offset);
        const char *names = (const char *)(m->file + sections[sections[i].sh_link].sh_offset);
        size_t count = sections[i].sh_size / sizeof(Elf64_Sym);
        for (size_t s = 0; s < count; s++) {
          int type = ELF64_ST_TYPE(symbols[s].st_info);
          if (symbols[s].st_shndx == SHN_UNDEF || (type != STT_FUNC && type != STT_OBJECT))
            continue;
          uint64_t value = m->bias + symbols[s].st_value;
          if (value <= address && value >= best_value && !(value == best_value && best)) {
            best = names + symbols[s].st_name;
            best_value = value;
          }
        }
      }
    }
    const char *base = strrchr(m->path, '/');
    if (best)
      snprintf(out, size, "%s+0x%lx", best, (unsigned long)(address - best_value));
    else
      snprintf(out, size, "%s+0x%lx", base ? base + 1 : m->path, (unsigned long)(address - m->bias));
    return;
  }
  out[0] = 0;
}

/* ---- attaching, or opening a core ---- */

static int thread_order(const void *a, const void *b) {
  return ((const struct thread *)a)->lwp - ((const struct thread *)b)->lwp;
}

static void detach_all(void) {
  for (int i = 0; i < thread_count; i++)
    if (threads[i].attached)
      ptrace(PTRACE_DETACH, threads[i].lwp, 0, 0);
}

static void attach(pid_t pid) {
  target_pid = pid;
  /* seize and interrupt each thread (no SIGSTOP is sent: the target runs on unchanged when we leave, even
   * if this program dies); look again until a pass finds no new thread */
  for (int pass = 0, added = 1; added && pass < 10; pass++) {
    added = 0;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/task", pid);
    DIR *dir = opendir(path);
    if (!dir)
      die("no process %d", pid);
    for (struct dirent *e; (e = readdir(dir));) {
      pid_t lwp = atoi(e->d_name);
      int known = lwp <= 0;
      for (int i = 0; i < thread_count && !known; i++)
        known = threads[i].lwp == lwp;
      if (known || thread_count == MAX_THREADS)
        continue;
      if (ptrace(PTRACE_SEIZE, lwp, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, lwp, 0, 0) != 0)
        continue; /* the thread ended meanwhile */
      int status;
      if (waitpid(lwp, &status, __WALL) != lwp)
        die("waiting for thread %d: %s", lwp, strerror(errno));
      threads[thread_count].lwp = lwp;
      threads[thread_count].attached = 1;
      if (ptrace(PTRACE_GETREGS, lwp, 0, &threads[thread_count].regs) != 0)
        die("registers of thread %d: %s", lwp, strerror(errno));
      thread_count++;
      added = 1;
    }
    closedir(dir);
  }
  atexit(detach_all);
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/mem", pid);
  memory_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (memory_fd < 0)
    die("%s: %s", path, strerror(errno));
  snprintf(path, sizeof path, "/proc/%d/maps", pid);
  FILE *maps = fopen(path, "r");
  if (!maps)
    die("%s: %s", path, strerror(errno));
  char line[PATH_MAX + 128];
  while (fgets(line, sizeof line, maps)) {
    unsigned long start, end, offset;
    char file[PATH_MAX] = "";
    int fields = sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095s", &start, &end, &offset, file);
    if (fields >= 3 && segment_count < MAX_SEGMENTS)
      segments[segment_count++] = (struct segment){start, end, 0, 0}; /* for stacks only: read through /proc */
    if (fields == 4 && file[0] == '/' && offset == 0)
      add_module(file, start);
  }
  fclose(maps);
  qsort(threads, thread_count, sizeof threads[0], thread_order);
}

static void open_core(const char *path, const char *executable) {
  core = map_file(path, &core_size);
  if (!core || core_size < sizeof(Elf64_Ehdr) || memcmp(core, ELFMAG, SELFMAG) != 0)
    die("%s is not an ELF file", path);
  Elf64_Ehdr *eh = (Elf64_Ehdr *)core;
  if (eh->e_type != ET_CORE || eh->e_machine != EM_X86_64)
    die("%s is not an x86-64 core file", path);
  Elf64_Phdr *ph = (Elf64_Phdr *)(core + eh->e_phoff);
  for (int i = 0; i < eh->e_phnum; i++) {
    if (ph[i].p_type == PT_LOAD && segment_count < MAX_SEGMENTS) {
      segments[segment_count++] = (struct segment){ph[i].p_vaddr, ph[i].p_vaddr + ph[i].p_memsz, ph[i].p_offset,
                                                   ph[i].p_filesz};
      continue;
    }
    if (ph[i].p_type != PT_NOTE)
      continue;
    for (uint64_t at = ph[i].p_offset; at + sizeof(Elf64_Nhdr) <= ph[i].p_offset + ph[i].p_filesz;) {
      Elf64_Nhdr *note = (Elf64_Nhdr *)(core + at);
      unsigned char *desc = core + at + sizeof *note + ((note->n_namesz + 3) & ~3u);
      if (note->n_type == NT_PRSTATUS && note->n_descsz >= sizeof(struct elf_prstatus) &&
          thread_count < MAX_THREADS) {
        struct elf_prstatus status;
        memcpy(&status, desc, sizeof status);
        threads[thread_count].lwp = status.pr_pid;
        memcpy(&threads[thread_count].regs, &status.pr_reg, sizeof threads[thread_count].regs);
        thread_count++;
      } else if (note->n_type == NT_FILE) {
        uint64_t count = ((uint64_t *)desc)[0], page = ((uint64_t *)desc)[1];
        uint64_t *entries = (uint64_t *)desc + 2;
        const char *name = (const char *)(entries + 3 * count);
        for (uint64_t k = 0; k < count && file_map_count < MAX_SEGMENTS; k++) {
          struct file_map *m = &file_maps[file_map_count++];
          m->start = entries[3 * k];
          m->end = entries[3 * k + 1];
          m->offset = entries[3 * k + 2] * page;
          snprintf(m->path, sizeof m->path, "%s", name);
          name += strlen(name) + 1;
        }
      }
      at += sizeof *note + ((note->n_namesz + 3) & ~3u) + ((note->n_descsz + 3) & ~3u);
    }
  }
  if (thread_count == 0)
    die("%s has no thread (NT_PRSTATUS)", path);
  char real_executable[PATH_MAX];
  if (!realpath(executable, real_executable))
    die("%s: %s", executable, strerror(errno));
  for (int i = 0; i < file_map_count; i++) {
    if (file_maps[i].offset != 0)
      continue;
    /* the executable as given (its path in the core may be another name of it) */
    char real[PATH_MAX];
    if (i == 0 && (!realpath(file_maps[i].path, real) || strcmp(real, real_executable) != 0))
      snprintf(file_maps[i].path, sizeof file_maps[i].path, "%s", real_executable);
    add_module(file_maps[i].path, file_maps[i].start);
  }
  qsort(threads, thread_count, sizeof threads[0], thread_order);
}

/* ---- libthread_db over the target (its proc_service callbacks) ---- */

struct ps_prochandle { int unused; };
static struct ps_prochandle process_handle;
static td_thragent_t *thread_agent;

static struct thread *thread_of_lwp(lwpid_t lwp) {
  for (int i = 0; i < thread_count; i++)
    if (threads[i].lwp == lwp)
      return &threads[i];
  return NULL;
}

ps_err_e ps_pdread(struct ps_prochandle *ph, psaddr_t address, void *out, size_t n) {
  (void)ph;
  return target_read((uint64_t)(uintptr_t)address, n, out) == 0 ? PS_OK : PS_ERR;
}
ps_err_e ps_pdwrite(struct ps_prochandle *ph, psaddr_t address, const void *in, size_t n) {
  (void)ph, (void)address, (void)in, (void)n;
  return PS_ERR; /* we only read */
}
ps_err_e ps_ptread(struct ps_prochandle *ph, psaddr_t address, void *out, size_t n) {
  return ps_pdread(ph, address, out, n);
}
ps_err_e ps_ptwrite(struct ps_prochandle *ph, psaddr_t address, const void *in, size_t n) {
  return ps_pdwrite(ph, address, in, n);
}
ps_err_e ps_lgetregs(struct ps_prochandle *ph, lwpid_t lwp, prgregset_t registers) {
  (void)ph;
  struct thread *t = thread_of_lwp(lwp);
  if (!t)
    return PS_BADLID;
  memcpy(registers, &t->regs, sizeof t->regs);
  return PS_OK;
}
ps_err_e ps_lsetregs(struct ps_prochandle *ph, lwpid_t lwp, const prgregset_t registers) {
  (void)ph, (void)lwp, (void)registers;
  return PS_ERR;
}
ps_err_e ps_lgetfpregs(struct ps_prochandle *ph, lwpid_t lwp, prfpregset_t *registers) {
  (void)ph, (void)lwp, (void)registers;
  return PS_ERR;
}
ps_err_e ps_lsetfpregs(struct ps_prochandle *ph, lwpid_t lwp, const prfpregset_t *registers) {
  (void)ph, (void)lwp, (void)registers;
  return PS_ERR;
}
pid_t ps_getpid(struct ps_prochandle *ph) {
  (void)ph;
  return target_pid;
}
ps_err_e ps_get_thread_area(struct ps_prochandle *ph, lwpid_t lwp, int index, psaddr_t *base) {
  (void)ph;
  struct thread *t = thread_of_lwp(lwp);
  if (!t)
    return PS_BADLID;
  if (index == 25 /* FS, <sys/reg.h> */)
    *base = (psaddr_t)(uintptr_t)t->regs.fs_base;
  else if (index == 26 /* GS */)
    *base = (psaddr_t)(uintptr_t)t->regs.gs_base;
  else
    return PS_BADADDR;
  return PS_OK;
}
ps_err_e ps_pglobal_lookup(struct ps_prochandle *ph, const char *object, const char *name, psaddr_t *address) {
  (void)ph, (void)object;
  struct found f;
  if (!find_symbol(name, &f) || f.tls)
    return PS_NOSYM;
  *address = (psaddr_t)(uintptr_t)f.value;
  return PS_OK;
}

/* each module's link_map in the target, from the dynamic linker's _r_debug (matched by load bias) */
static void find_link_maps(void) {
  struct found r_debug;
  if (!find_symbol("_r_debug", &r_debug))
    return;
  uint64_t map = 0;
  if (target_read(r_debug.value + 8, 8, &map) != 0)
    return;
  for (int n = 0; map && n < 1024; n++) {
    uint64_t fields[4]; /* l_addr, l_name, l_ld, l_next */
    if (target_read(map, sizeof fields, fields) != 0)
      return;
    for (int k = 0; k < module_count; k++)
      if (modules[k].bias == fields[0] && !modules[k].link_map)
        modules[k].link_map = map;
    map = fields[3];
  }
}

static int tls_address(struct thread *t, struct found *f, uint64_t *out) {
  if (!thread_agent || !f->module->link_map)
    return -1;
  td_thrhandle_t th;
  if (td_ta_map_lwp2thr(thread_agent, t->lwp, &th) != TD_OK)
    return -1;
  psaddr_t address;
  if (td_thr_tls_get_addr(&th, (psaddr_t)(uintptr_t)f->module->link_map, f->value, &address) != TD_OK)
    return -1;
  *out = (uint64_t)(uintptr_t)address;
  return 0;
}

/* ---- the OMPD callbacks ---- */

struct _ompd_aspace_cont { int id; };
struct _ompd_thread_cont { struct thread *thread; };
static ompd_address_space_context_t process_context = {1};
static struct _ompd_thread_cont contexts[MAX_THREADS];

static ompd_rc_t cb_alloc(ompd_size_t n, void **p) {
  if (!p)
    return ompd_rc_bad_input;
  *p = malloc(n ? n : 1);
  return *p ? ompd_rc_ok : ompd_rc_nomem;
}
static ompd_rc_t cb_free(void *p) {
  free(p);
  return ompd_rc_ok;
}
static ompd_rc_t cb_print(const char *s, int category) {
  (void)category;
  fprintf(stderr, "PRINT %s\n", s);
  return ompd_rc_ok;
}
static ompd_rc_t cb_sizes(ompd_address_space_context_t *c, ompd_device_type_sizes_t *s) {
  (void)c;
  ompd_device_type_sizes_t native = {1, 2, 4, 8, 8, 8};
  *s = native;
  return ompd_rc_ok;
}
static ompd_rc_t cb_read(ompd_address_space_context_t *c, ompd_thread_context_t *t, const ompd_address_t *a,
                         ompd_size_t n, void *buffer) {
  (void)c, (void)t;
  return target_read(a->address, n, buffer) == 0 ? ompd_rc_ok : ompd_rc_error;
}
static ompd_rc_t cb_read_string(ompd_address_space_context_t *c, ompd_thread_context_t *t,
                                const ompd_address_t *a, ompd_size_t n, void *buffer) {
  (void)c, (void)t;
  char *out = buffer;
  for (ompd_size_t i = 0; i < n; i++) {
    if (target_read(a->address + i, 1, out + i) != 0)
      return ompd_rc_error;
    if (!out[i])
      return ompd_rc_ok;
  }
  out[n - 1] = 0;
  return ompd_rc_incomplete;
}
static ompd_rc_t cb_symbol(ompd_address_space_context_t *c, ompd_thread_context_t *t, const char *name,
                           ompd_address_t *out, const char *file) {
  (void)c, (void)file;
  struct found f;
  if (!find_symbol(name, &f))
    return ompd_rc_error;
  uint64_t address = f.value;
  if (f.tls) {
    if (!t || tls_address(t->thread, &f, &address) != 0)
      return ompd_rc_error;
  }
  out->segment = 0;
  out->address = address;
  return ompd_rc_ok;
}
static ompd_rc_t cb_thread_context(ompd_address_space_context_t *c, ompd_thread_id_t kind, ompd_size_t size,
                                   const void *id, ompd_thread_context_t **out) {
  (void)c;
  if (!id || !out)
    return ompd_rc_bad_input;
  for (int i = 0; i < thread_count; i++) {
    if ((kind == 0 && size == 8 && *(const uint64_t *)id == threads[i].regs.fs_base) ||
        (kind == 1 && size == 4 && *(const uint32_t *)id == (uint32_t)threads[i].lwp) ||
        (kind == 1 && size == 8 && *(const uint64_t *)id == (uint64_t)threads[i].lwp)) {
      *out = &contexts[i];
      return ompd_rc_ok;
    }
  }
  return ompd_rc_unavailable;
}
/* the target runs on this machine's architecture: the same byte order */
static ompd_rc_t cb_device_host(ompd_address_space_context_t *c, const void *input, ompd_size_t unit_size,
                                ompd_size_t count, void *output) {
  (void)c;
  memmove(output, input, unit_size * count);
  return ompd_rc_ok;
}
static const ompd_callbacks_t callbacks = {cb_alloc, cb_free, cb_print, cb_sizes, cb_symbol, cb_read,
                                           NULL /* never written */, cb_read_string, cb_device_host,
                                           cb_device_host, cb_thread_context};

/* ---- canonical names of addresses ---- */

static uint64_t others[MAX_OTHER];
static int other_count;

/* an address without the address: code and data as symbol+offset, a stack address from the top of the stack
 * of the thread whose stack it is in, anything else as H<n> in order of first appearance */
static const char *canonical(uint64_t address) {
  static char text[8][300];
  static int turn;
  char *out = text[turn++ % 8];
  if (address == 0)
    return "0";
  describe_code(address, out, 300);
  if (out[0])
    return out;
  for (int i = 0; i < thread_count; i++) {
    /* from the top of the stack: the same wherever the thread was stopped */
    if (address >= threads[i].stack_low && address < threads[i].stack_high) {
      snprintf(out, 300, "stack(t%d)-0x%lx", i, (unsigned long)(threads[i].stack_high - address));
      return out;
    }
  }
  int n = 0;
  while (n < other_count && others[n] != address)
    n++;
  if (n == other_count && other_count < MAX_OTHER)
    others[other_count++] = address;
  snprintf(out, 300, "H%d", n);
  return out;
}

/* ---- the walk ---- */

#define FN(name) static typeof(&name) p_##name
FN(ompd_get_api_version); FN(ompd_get_version_string); FN(ompd_initialize); FN(ompd_finalize);
FN(ompd_process_initialize); FN(ompd_get_omp_version); FN(ompd_get_omp_version_string);
FN(ompd_rel_address_space_handle); FN(ompd_get_thread_handle); FN(ompd_get_thread_id);
FN(ompd_get_curr_parallel_handle); FN(ompd_get_enclosing_parallel_handle); FN(ompd_get_thread_in_parallel);
FN(ompd_thread_handle_compare); FN(ompd_get_curr_task_handle); FN(ompd_get_task_parallel_handle);
FN(ompd_parallel_handle_compare); FN(ompd_get_generating_task_handle); FN(ompd_get_scheduling_task_handle);
FN(ompd_get_task_in_parallel); FN(ompd_task_handle_compare); FN(ompd_get_task_function);
FN(ompd_get_task_frame); FN(ompd_get_state); FN(ompd_enumerate_states); FN(ompd_enumerate_icvs);
FN(ompd_get_icv_from_scope); FN(ompd_get_icv_string_from_scope); FN(ompd_get_display_control_vars);
FN(ompd_rel_display_control_vars); FN(ompd_get_tool_data); FN(ompd_rel_thread_handle);
FN(ompd_rel_parallel_handle); FN(ompd_rel_task_handle);
#undef FN

#define OUT(key, rc, ...)                                                                                          \
  do {                                                                                                             \
    printf("R %s %d ", key, (int)(rc));                                                                            \
    printf(__VA_ARGS__);                                                                                           \
    printf("\n");                                                                                                  \
  } while (0)

struct icv { ompd_icv_id_t id; ompd_scope_t scope; };
static struct icv icvs[256];
static int icv_count;
static struct { ompd_word_t value; char name[96]; } states[256];
static int state_count;

static ompd_thread_handle_t *thread_handles[MAX_THREADS];
static ompd_parallel_handle_t *regions[MAX_REGIONS];
static int region_count;
static ompd_task_handle_t *tasks[MAX_TASKS];
static int task_count;

/* the label of a parallel handle: an earlier one the library says is the same region, or a new P<n> (the
 * handle is then kept, else released); "-" for a handle the library could not compare */
static int region_label(ompd_parallel_handle_t *p) {
  for (int i = 0; i < region_count; i++) {
    int cmp = 1;
    if (p_ompd_parallel_handle_compare(p, regions[i], &cmp) == ompd_rc_ok && cmp == 0) {
      p_ompd_rel_parallel_handle(p);
      return i;
    }
  }
  if (region_count == MAX_REGIONS) {
    p_ompd_rel_parallel_handle(p);
    return -1;
  }
  regions[region_count] = p;
  return region_count++;
}
static int task_label(ompd_task_handle_t *t) {
  for (int i = 0; i < task_count; i++) {
    int cmp = 1;
    if (p_ompd_task_handle_compare(t, tasks[i], &cmp) == ompd_rc_ok && cmp == 0) {
      p_ompd_rel_task_handle(t);
      return i;
    }
  }
  if (task_count == MAX_TASKS) {
    p_ompd_rel_task_handle(t);
    return -1;
  }
  tasks[task_count] = t;
  return task_count++;
}
/* the t<k> of a thread handle, by the pthread id the library gives for it */
static int thread_label(ompd_thread_handle_t *h) {
  uint64_t id = 0;
  if (p_ompd_get_thread_id(h, 0, 8, &id) != ompd_rc_ok)
    return -1;
  for (int i = 0; i < thread_count; i++)
    if (threads[i].regs.fs_base == id)
      return i;
  return -2;
}

static const char *state_name(ompd_word_t state) {
  for (int i = 0; i < state_count; i++)
    if (states[i].value == state)
      return states[i].name;
  return "unknown";
}

static void icvs_of(const char *prefix, void *handle, ompd_scope_t scope) {
  for (int i = 0; i < icv_count; i++) {
    if (icvs[i].scope != scope)
      continue;
    char key[160];
    ompd_word_t word = -12345;
    ompd_rc_t rc = p_ompd_get_icv_from_scope(handle, scope, icvs[i].id, &word);
    snprintf(key, sizeof key, "%s.icv.%lu.value", prefix, (unsigned long)icvs[i].id);
    if (rc == ompd_rc_ok || rc == ompd_rc_incomplete)
      OUT(key, rc, "%ld", (long)word);
    else
      OUT(key, rc, "-");
    const char *text = NULL;
    rc = p_ompd_get_icv_string_from_scope(handle, scope, icvs[i].id, &text);
    snprintf(key, sizeof key, "%s.icv.%lu.string", prefix, (unsigned long)icvs[i].id);
    OUT(key, rc, "%s", rc == ompd_rc_ok && text ? text : "-");
    if (rc == ompd_rc_ok)
      free((void *)text);
  }
}

static void tool_data(const char *prefix, void *handle, ompd_scope_t scope) {
  ompd_word_t value = 0;
  ompd_address_t pointer = {0, 0};
  char key[160];
  snprintf(key, sizeof key, "%s.tool_data", prefix);
  ompd_rc_t rc = p_ompd_get_tool_data(handle, scope, &value, &pointer);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "%ld %s", (long)value, canonical(pointer.address));
  else
    OUT(key, rc, "-");
}

static void describe_region(int n) {
  ompd_parallel_handle_t *p = regions[n];
  char prefix[32], key[160];
  snprintf(prefix, sizeof prefix, "P%d", n);
  icvs_of(prefix, p, ompd_scope_parallel);
  /* OpenMP 6.0's teams scope (7: not in LLVM 19's omp-tools.h): its ICVs, when the library enumerated any */
  icvs_of(prefix, p, (ompd_scope_t)7);
  tool_data(prefix, p, ompd_scope_parallel);
  ompd_parallel_handle_t *enclosing = NULL;
  ompd_rc_t rc = p_ompd_get_enclosing_parallel_handle(p, &enclosing);
  snprintf(key, sizeof key, "%s.enclosing", prefix);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "P%d", region_label(enclosing));
  else
    OUT(key, rc, "-");
  /* its members and implicit tasks: as many as the team size says, then one beyond, bounded */
  ompd_word_t size = 0;
  if (p_ompd_get_icv_from_scope(p, ompd_scope_parallel, 29 /* team-size-var */, &size) != ompd_rc_ok)
    size = 0;
  if (size < 0 || size > 1024)
    size = 1024;
  for (ompd_word_t i = -1; i <= size; i++) {
    ompd_thread_handle_t *member = NULL;
    snprintf(key, sizeof key, "%s.thread_in_parallel.%ld", prefix, (long)i);
    rc = p_ompd_get_thread_in_parallel(p, (int)i, &member);
    if (rc == ompd_rc_ok) {
      int label = thread_label(member);
      int cmp = 99;
      if (label >= 0 && thread_handles[label])
        p_ompd_thread_handle_compare(member, thread_handles[label], &cmp);
      OUT(key, rc, "t%d same %s", label, cmp == 99 ? "-" : cmp == 0 ? "yes" : "no");
      p_ompd_rel_thread_handle(member);
    } else {
      OUT(key, rc, "-");
    }
    ompd_task_handle_t *implicit = NULL;
    snprintf(key, sizeof key, "%s.task_in_parallel.%ld", prefix, (long)i);
    rc = p_ompd_get_task_in_parallel(p, (int)i, &implicit);
    if (rc == ompd_rc_ok)
      OUT(key, rc, "T%d", task_label(implicit));
    else
      OUT(key, rc, "-");
  }
}

static void describe_task(int n) {
  ompd_task_handle_t *t = tasks[n];
  char prefix[32], key[160];
  snprintf(prefix, sizeof prefix, "T%d", n);
  icvs_of(prefix, t, ompd_scope_task);
  tool_data(prefix, t, ompd_scope_task);
  ompd_parallel_handle_t *p = NULL;
  ompd_rc_t rc = p_ompd_get_task_parallel_handle(t, &p);
  snprintf(key, sizeof key, "%s.parallel", prefix);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "P%d", region_label(p));
  else
    OUT(key, rc, "-");
  ompd_task_handle_t *other = NULL;
  rc = p_ompd_get_generating_task_handle(t, &other);
  snprintf(key, sizeof key, "%s.generating", prefix);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "T%d", task_label(other));
  else
    OUT(key, rc, "-");
  rc = p_ompd_get_scheduling_task_handle(t, &other);
  snprintf(key, sizeof key, "%s.scheduling", prefix);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "T%d", task_label(other));
  else
    OUT(key, rc, "-");
  ompd_address_t entry = {0, 0};
  rc = p_ompd_get_task_function(t, &entry);
  snprintf(key, sizeof key, "%s.function", prefix);
  OUT(key, rc, "%s", rc == ompd_rc_ok ? canonical(entry.address) : "-");
  ompd_frame_info_t exit_frame = {{0, 0}, 0}, enter_frame = {{0, 0}, 0};
  rc = p_ompd_get_task_frame(t, &exit_frame, &enter_frame);
  snprintf(key, sizeof key, "%s.frame", prefix);
  if (rc == ompd_rc_ok)
    OUT(key, rc, "exit %s/%ld enter %s/%ld", canonical(exit_frame.frame_address.address), (long)exit_frame.frame_flag,
        canonical(enter_frame.frame_address.address), (long)enter_frame.frame_flag);
  else
    OUT(key, rc, "-");
}

static void inspect(void *lib, long api) {
#define LOAD(name)                                                                                                 \
  if (!(p_##name = dlsym(lib, #name)))                                                                             \
    die("the library has no %s", #name);
  LOAD(ompd_get_api_version); LOAD(ompd_get_version_string); LOAD(ompd_initialize); LOAD(ompd_finalize);
  LOAD(ompd_process_initialize); LOAD(ompd_get_omp_version); LOAD(ompd_get_omp_version_string);
  LOAD(ompd_rel_address_space_handle); LOAD(ompd_get_thread_handle); LOAD(ompd_get_thread_id);
  LOAD(ompd_get_curr_parallel_handle); LOAD(ompd_get_enclosing_parallel_handle); LOAD(ompd_get_thread_in_parallel);
  LOAD(ompd_thread_handle_compare); LOAD(ompd_get_curr_task_handle); LOAD(ompd_get_task_parallel_handle);
  LOAD(ompd_parallel_handle_compare); LOAD(ompd_get_generating_task_handle); LOAD(ompd_get_scheduling_task_handle);
  LOAD(ompd_get_task_in_parallel); LOAD(ompd_task_handle_compare); LOAD(ompd_get_task_function);
  LOAD(ompd_get_task_frame); LOAD(ompd_get_state); LOAD(ompd_enumerate_states); LOAD(ompd_enumerate_icvs);
  LOAD(ompd_get_icv_from_scope); LOAD(ompd_get_icv_string_from_scope); LOAD(ompd_get_display_control_vars);
  LOAD(ompd_rel_display_control_vars); LOAD(ompd_get_tool_data); LOAD(ompd_rel_thread_handle);
  LOAD(ompd_rel_parallel_handle); LOAD(ompd_rel_task_handle);
#undef LOAD
  ompd_rc_t rc;
  const char *version = "";
  p_ompd_get_version_string(&version);
  printf("LIBRARY %s\n", version);
  ompd_word_t word = 0;
  OUT("api_version", p_ompd_get_api_version(&word), "%ld", (long)word);
  OUT("api_version_null", p_ompd_get_api_version(NULL), "-");
  OUT("initialize_null", p_ompd_initialize(api, NULL), "-");
  OUT("initialize", rc = p_ompd_initialize(api, &callbacks), "-");
  if (rc != ompd_rc_ok)
    return;
  ompd_address_space_handle_t *ah = NULL;
  OUT("process_initialize_null", p_ompd_process_initialize(&process_context, NULL), "-");
  OUT("process_initialize", rc = p_ompd_process_initialize(&process_context, &ah), "-");
  if (rc != ompd_rc_ok)
    return;
  word = 0;
  OUT("omp_version", p_ompd_get_omp_version(ah, &word), "%ld", (long)word);
  OUT("omp_version_null", p_ompd_get_omp_version(ah, NULL), "-");
  const char *text = NULL;
  rc = p_ompd_get_omp_version_string(ah, &text);
  OUT("omp_version_string", rc, "%s", rc == ompd_rc_ok && text ? text : "-");

  /* the states and ICVs the library knows */
  ompd_word_t state = 0x102 /* ompt_state_undefined */, next = 0, more = 1;
  for (int i = 0; more && i < 256; i++) {
    const char *name = NULL;
    char key[64];
    rc = p_ompd_enumerate_states(ah, state, &next, &name, &more);
    snprintf(key, sizeof key, "state.%d", i);
    OUT(key, rc, "0x%lx %s more %ld", (long)next, rc == ompd_rc_ok ? name : "-", (long)more);
    if (rc != ompd_rc_ok)
      break;
    states[state_count].value = next;
    snprintf(states[state_count++].name, sizeof states[0].name, "%s", name);
    free((void *)name);
    state = next;
  }
  OUT("state.unknown_current", p_ompd_enumerate_states(ah, 0x7777, &next, &(const char *){NULL}, &more), "-");
  ompd_icv_id_t icv = 0, next_icv = 0;
  int more_icvs = 1;
  for (int i = 0; more_icvs && i < 256; i++) {
    const char *name = NULL;
    ompd_scope_t scope = 0;
    rc = p_ompd_enumerate_icvs(ah, icv, &next_icv, &name, &scope, &more_icvs);
    if (rc != ompd_rc_ok) {
      OUT("icv_enumeration", rc, "-");
      break;
    }
    char key[64];
    snprintf(key, sizeof key, "icv.%lu.name", (unsigned long)next_icv);
    OUT(key, rc, "%s scope %d", name, (int)scope);
    icvs[icv_count++] = (struct icv){next_icv, scope};
    free((void *)name);
    icv = next_icv;
  }
  OUT("icv.unknown_current", p_ompd_enumerate_icvs(ah, 999, &next_icv, &(const char *){NULL},
                                                   &(ompd_scope_t){0}, &more_icvs), "-");
  const char *const *vars = NULL;
  rc = p_ompd_get_display_control_vars(ah, &vars);
  int count = 0;
  for (; rc == ompd_rc_ok && vars[count]; count++)
    ;
  OUT("display_control_vars", rc, "%d", count);
  for (int i = 0; i < count; i++) {
    char key[64];
    snprintf(key, sizeof key, "display_control_vars.%d", i);
    OUT(key, rc, "%s", vars[i]);
  }
  if (rc == ompd_rc_ok)
    OUT("rel_display_control_vars", p_ompd_rel_display_control_vars(&vars), "-");
  icvs_of("space", ah, ompd_scope_address_space);
  OUT("space.icv.unknown_id", p_ompd_get_icv_from_scope(ah, ompd_scope_address_space, 999, &word), "-");
  tool_data("space", ah, ompd_scope_address_space);

  /* every OS thread, then the regions and tasks met, in the order they were met */
  int described_regions = 0, described_tasks = 0;
  for (int k = 0; k < thread_count; k++) {
    char key[160];
    uint64_t pthread = threads[k].regs.fs_base;
    snprintf(key, sizeof key, "t%d.thread_handle", k);
    ompd_thread_handle_t *th = NULL;
    OUT(key, rc = p_ompd_get_thread_handle(ah, 0, 8, &pthread, &th), "-");
    thread_handles[k] = rc == ompd_rc_ok ? th : NULL;
  }
  for (int k = 0; k < thread_count; k++) {
    char prefix[32], key[160];
    snprintf(prefix, sizeof prefix, "t%d", k);
    uint64_t pthread = threads[k].regs.fs_base;
    ompd_thread_handle_t *th = thread_handles[k];
    if (!th)
      continue;
    uint64_t id = 0;
    snprintf(key, sizeof key, "%s.thread_id", prefix);
    OUT(key, rc = p_ompd_get_thread_id(th, 0, 8, &id), "%s", id == pthread ? "self" : "other");
    snprintf(key, sizeof key, "%s.thread_id_lwp_kind", prefix);
    OUT(key, p_ompd_get_thread_id(th, 1, 8, &id), "-");
    snprintf(key, sizeof key, "%s.thread_id_size_4", prefix);
    OUT(key, p_ompd_get_thread_id(th, 0, 4, &id), "-");
    for (int j = 0; j < k; j++) {
      int cmp = 99;
      if (!thread_handles[j])
        continue;
      snprintf(key, sizeof key, "%s.compare.t%d", prefix, j);
      rc = p_ompd_thread_handle_compare(th, thread_handles[j], &cmp);
      OUT(key, rc, "%s", cmp == 0 ? "same" : "different");
    }
    ompd_wait_id_t wait = 0;
    state = 0;
    snprintf(key, sizeof key, "%s.state", prefix);
    rc = p_ompd_get_state(th, &state, &wait);
    OUT(key, rc, "%s wait %s", rc == ompd_rc_ok ? state_name(state) : "-", rc == ompd_rc_ok ? canonical(wait) : "-");
    snprintf(key, sizeof key, "%s.state_without_wait", prefix);
    rc = p_ompd_get_state(th, &state, NULL);
    OUT(key, rc, "%s", rc == ompd_rc_ok ? state_name(state) : "-");
    icvs_of(prefix, th, ompd_scope_thread);
    tool_data(prefix, th, ompd_scope_thread);
    ompd_parallel_handle_t *p = NULL;
    snprintf(key, sizeof key, "%s.curr_parallel", prefix);
    rc = p_ompd_get_curr_parallel_handle(th, &p);
    if (rc == ompd_rc_ok)
      OUT(key, rc, "P%d", region_label(p));
    else
      OUT(key, rc, "-");
    ompd_task_handle_t *t = NULL;
    snprintf(key, sizeof key, "%s.curr_task", prefix);
    rc = p_ompd_get_curr_task_handle(th, &t);
    if (rc == ompd_rc_ok)
      OUT(key, rc, "T%d", task_label(t));
    else
      OUT(key, rc, "-");
    /* what this thread led to, and what that led to */
    while (described_regions < region_count || described_tasks < task_count) {
      if (described_regions < region_count)
        describe_region(described_regions++);
      else
        describe_task(described_tasks++);
    }
  }
  printf("REGIONS %d TASKS %d\n", region_count, task_count);

  /* bad arguments */
  uint64_t nobody = 0x1234;
  ompd_thread_handle_t *unused = NULL;
  OUT("thread_handle.unknown_pthread", p_ompd_get_thread_handle(ah, 0, 8, &nobody, &unused), "-");
  OUT("thread_handle.unknown_kind", p_ompd_get_thread_handle(ah, 77, 8, &nobody, &unused), "-");
  uint64_t first = threads[0].regs.fs_base;
  OUT("thread_handle.null_out", p_ompd_get_thread_handle(ah, 0, 8, &first, NULL), "-");
  OUT("thread_handle.null_id", p_ompd_get_thread_handle(ah, 0, 8, NULL, &unused), "-");
  for (int k = 0; k < thread_count; k++) {
    if (!thread_handles[k])
      continue;
    ompd_thread_handle_t *th = thread_handles[k];
    OUT("bad.curr_parallel_null_out", p_ompd_get_curr_parallel_handle(th, NULL), "-");
    OUT("bad.curr_task_null_out", p_ompd_get_curr_task_handle(th, NULL), "-");
    OUT("bad.state_null_out", p_ompd_get_state(th, NULL, NULL), "-");
    OUT("bad.thread_id_null_out", p_ompd_get_thread_id(th, 0, 8, NULL), "-");
    OUT("bad.icv_unknown_id", p_ompd_get_icv_from_scope(th, ompd_scope_thread, 999, &word), "-");
    for (int i = 0; i < icv_count; i++) {
      /* an ICV asked at another scope than its own */
      char key[96];
      snprintf(key, sizeof key, "bad.icv.%lu.wrong_scope", (unsigned long)icvs[i].id);
      ompd_scope_t wrong = icvs[i].scope == ompd_scope_thread ? ompd_scope_task : ompd_scope_thread;
      OUT(key, p_ompd_get_icv_from_scope(th, wrong, icvs[i].id, &word), "-");
    }
    break;
  }
  if (region_count) {
    OUT("bad.thread_in_parallel_null_out", p_ompd_get_thread_in_parallel(regions[0], 0, NULL), "-");
    OUT("bad.enclosing_null_out", p_ompd_get_enclosing_parallel_handle(regions[0], NULL), "-");
    OUT("bad.parallel_compare_null", p_ompd_parallel_handle_compare(regions[0], regions[0], NULL), "-");
  }
  if (task_count) {
    OUT("bad.generating_null_out", p_ompd_get_generating_task_handle(tasks[0], NULL), "-");
    OUT("bad.task_function_null_out", p_ompd_get_task_function(tasks[0], NULL), "-");
    OUT("bad.task_frame_null_out", p_ompd_get_task_frame(tasks[0], NULL, NULL), "-");
  }

  for (int i = 0; i < task_count; i++)
    p_ompd_rel_task_handle(tasks[i]);
  for (int i = 0; i < region_count; i++)
    p_ompd_rel_parallel_handle(regions[i]);
  for (int k = 0; k < thread_count; k++)
    if (thread_handles[k])
      p_ompd_rel_thread_handle(thread_handles[k]);
  OUT("rel_address_space", p_ompd_rel_address_space_handle(ah), "-");
  OUT("finalize", p_ompd_finalize(), "-");
}

int main(int argc, char **argv) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char *core_path = NULL, *executable = NULL, *library = NULL;
  pid_t pid = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--pid") == 0 && i + 1 < argc)
      pid = atoi(argv[++i]);
    else if (strcmp(argv[i], "--core") == 0 && i + 1 < argc)
      core_path = argv[++i];
    else if (strcmp(argv[i], "--exe") == 0 && i + 1 < argc)
      executable = argv[++i];
    else if (argv[i][0] != '-' && !library)
      library = argv[i];
    else
      die("usage: ompd_target (--pid PID | --core CORE --exe EXE) LIBRARY");
  }
  if (!library || (pid > 0) == (core_path != NULL) || (core_path && !executable))
    die("usage: ompd_target (--pid PID | --core CORE --exe EXE) LIBRARY");
  if (core_path)
    open_core(core_path, executable);
  else
    attach(pid);
  find_link_maps();
  for (int i = 0; i < thread_count; i++) {
    contexts[i].thread = &threads[i];
    for (int k = 0; k < segment_count; k++)
      if (threads[i].regs.rsp >= segments[k].start && threads[i].regs.rsp < segments[k].end) {
        threads[i].stack_low = segments[k].start;
        threads[i].stack_high = segments[k].end;
      }
  }
  if (td_init() != TD_OK || td_ta_new(&process_handle, &thread_agent) != TD_OK)
    thread_agent = NULL;
  printf("TARGET threads %d modules %d thread_db %s\n", thread_count, module_count, thread_agent ? "yes" : "no");
  for (int i = 0; i < thread_count; i++)
    printf("THREAD t%d lwp %d\n", i, threads[i].lwp);
  void *lib = dlopen(library, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    die("dlopen %s: %s", library, dlerror());
  const char *api = getenv("OMPD_TARGET_API");
  inspect(lib, api ? atol(api) : 201811);
  printf("DONE\n");
  return 0;
}
