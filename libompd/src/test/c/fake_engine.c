/*
 * fake_engine -- stands in for jompd's Java engine (JOMPD_JAVA points here; its arguments are ignored) to test the
 * shim's side of protocol jompd-libompd/2 (src/main/c/libompd.c): speaks the protocol on stdin/stdout, with
 * FAKE_ENGINE_MODE:
 *   asks_forever  get_omp_version never ends: a type-sizes question every 200 ms, forever
 *   answers       get_omp_version asks one symbol lookup ("thread_tag", no thread context), waits 20 ms and
 *                 answers the address the debugger gave as the version (so each caller gets its own answer back)
 * In both modes process_initialize hands over nothing (get_state and enumerate_states go to the engine) and
 * get_omp_version_string answers "fake engine pid N". Anything unexpected (a CALL while a question waits for
 * its ANSWER) ends it with exit code 3, a message on stderr.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { F_HELLO = 1, F_CALL = 2, F_QUESTION = 3, F_ANSWER = 4, F_RESULT = 5 };
enum { R_PROCESS_INITIALIZE = 1, R_GET_OMP_VERSION = 2, R_GET_OMP_VERSION_STRING = 3 };
enum { Q_SYMBOL = 3, Q_SIZEOF = 5 };
enum { RC_OK = 0, RC_UNSUPPORTED = 5 };

static unsigned char frame[1 << 16];
static size_t length;

static void put(const void *bytes, size_t n) {
  memcpy(frame + length, bytes, n);
  length += n;
}
static void put_word(uint64_t v) { put(&v, 8); }
static void put_blob(const char *s) {
  uint32_t n = (uint32_t)strlen(s);
  put(&n, 4);
  put(s, n);
}
static void begin(uint8_t type) {
  length = 4;
  put(&type, 1);
}
static void send(void) {
  uint32_t n = (uint32_t)(length - 4);
  memcpy(frame, &n, 4);
  if (fwrite(frame, 1, length, stdout) != length || fflush(stdout) != 0)
    exit(0); /* the shim is gone */
}
static void read_exactly(void *into, size_t n) {
  if (fread(into, 1, n, stdin) != n)
    exit(0); /* stdin closed: the debugger went away */
}
/* Receives one frame into `frame` (without its length); returns its type. */
static int receive(void) {
  uint32_t n;
  read_exactly(&n, 4);
  if (n == 0 || n > sizeof frame) {
    fprintf(stderr, "fake engine: bad frame length %u\n", n);
    exit(3);
  }
  read_exactly(frame, n);
  length = n;
  return frame[0];
}
static void expect_answer(void) {
  int type = receive();
  if (type != F_ANSWER) {
    fprintf(stderr, "fake engine: frame %d while a question waited for its answer\n", type);
    exit(3);
  }
}
static void sleep_ms(long ms) {
  struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
  nanosleep(&t, NULL);
}

int main(void) {
  const char *mode = getenv("FAKE_ENGINE_MODE");
  int asks_forever = mode && strcmp(mode, "asks_forever") == 0;
  begin(F_HELLO);
  put_word(2);
  put_blob("fake engine");
  send();
  for (;;) {
    if (receive() != F_CALL) {
      fprintf(stderr, "fake engine: a frame other than CALL between calls\n");
      exit(3);
    }
    uint16_t routine;
    memcpy(&routine, frame + 1, 2);
    if (routine == R_GET_OMP_VERSION && asks_forever) {
      for (;;) {
        begin(F_QUESTION);
        uint8_t q = Q_SIZEOF;
        put(&q, 1);
        send();
        expect_answer();
        sleep_ms(200);
      }
    }
    uint64_t version = 0;
    if (routine == R_GET_OMP_VERSION) {
      begin(F_QUESTION);
      uint8_t q = Q_SYMBOL;
      put(&q, 1);
      put_word(0);
      put_blob("thread_tag");
      put_blob("");
      send();
      expect_answer();
      uint64_t rc;
      memcpy(&rc, frame + 1, 8);
      if (rc == RC_OK)
        memcpy(&version, frame + 9, 8);
      sleep_ms(20);
    }
    begin(F_RESULT);
    switch (routine) {
    case R_PROCESS_INITIALIZE:
      put_word(RC_OK);
      put_blob("");
      put_word(0); /* no get_state fields */
      put_word(0); /* no states */
      put_word(0);
      break;
    case R_GET_OMP_VERSION:
      put_word(RC_OK);
      put_blob("");
      put_word(version);
      break;
    case R_GET_OMP_VERSION_STRING: {
      char text[64];
      snprintf(text, sizeof text, "fake engine pid %ld", (long)getpid());
      put_word(RC_OK);
      put_blob("");
      put_blob(text);
      break;
    }
    default:
      put_word(RC_UNSUPPORTED);
      put_blob("");
      break;
    }
    send();
  }
}
