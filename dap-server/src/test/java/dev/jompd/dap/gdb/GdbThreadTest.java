package dev.jompd.dap.gdb;

import dev.jompd.dap.mi.MiParser;
import dev.jompd.dap.mi.MiRecord;
import dev.jompd.dap.mi.MiValue;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GdbThreadTest {

    private static MiValue.Tuple results(String line) {
        return ((MiRecord.ResultRecord) MiParser.parse(line)).results();
    }

    @Test
    void threadInfoGivesIdsLwpPthreadAndTopFrame() {
        MiValue.Tuple answer = results("^done,threads=[{id=\"2\",target-id=\"Thread 0x7ffff7a3e740 (LWP 4711)\","
                + "name=\"nested\",frame={level=\"0\",addr=\"0x00007ffff7e2a1ce\",func=\"__futex_abstimed_wait_common64\","
                + "args=[],from=\"/lib/x86_64-linux-gnu/libc.so.6\",arch=\"i386:x86-64\"},state=\"stopped\",core=\"1\"},"
                + "{id=\"1\",target-id=\"LWP 12\",state=\"running\"}],current-thread-id=\"2\"");
        List<GdbThread> threads = answer.get("threads").orElseThrow().items().stream().map(GdbThread::parse).toList();
        GdbThread first = threads.getFirst();
        assertThat(first.id()).isEqualTo(2);
        assertThat(first.lwp()).hasValue(4711);
        assertThat(first.pthread()).hasValue(0x7ffff7a3e740L);
        assertThat(first.name()).hasValue("nested");
        assertThat(first.running()).isFalse();
        GdbFrame frame = first.frame().orElseThrow();
        assertThat(frame.function()).hasValue("__futex_abstimed_wait_common64");
        assertThat(frame.address()).hasValue(0x7ffff7e2a1ceL);
        assertThat(frame.file()).isEmpty();
        assertThat(frame.library()).hasValue("/lib/x86_64-linux-gnu/libc.so.6");
        assertThat(threads.get(1).lwp()).hasValue(12);
        assertThat(threads.get(1).pthread()).isEmpty();
        assertThat(threads.get(1).running()).isTrue();
    }

    @Test
    void targetIdsOfEveryShape() {
        assertThat(GdbThread.lwpOf("process 99")).hasValue(99);
        assertThat(GdbThread.lwpOf("Thread 0x1 (LWP 5)")).hasValue(5);
        assertThat(GdbThread.lwpOf("Remote target")).isEmpty();
        assertThat(GdbThread.pthreadOf("Thread 0xffffffffffffffff (LWP 5)")).hasValue(-1L);
        assertThat(GdbThread.pthreadOf("Thread 0x (LWP 5)")).isEmpty();
        assertThat(GdbThread.pthreadOf("LWP 5")).isEmpty();
    }

    @Test
    void breakpointWithSeveralLocationsDescribesTheFirst() {
        MiValue bkpt = results("^done,bkpt={number=\"3\",type=\"breakpoint\",disp=\"keep\",enabled=\"y\",addr=\"<MULTIPLE>\","
                + "times=\"0\",original-location=\"f\",locations=[{number=\"3.1\",enabled=\"y\",addr=\"0x1\",func=\"f\","
                + "file=\"a.c\",fullname=\"/s/a.c\",line=\"10\"},{number=\"3.2\",addr=\"0x2\",func=\"f\",file=\"b.c\",line=\"20\"}]}")
                .get("bkpt").orElseThrow();
        GdbBreakpoint breakpoint = GdbBreakpoint.parse(bkpt);
        assertThat(breakpoint.number()).isEqualTo(3);
        assertThat(breakpoint.pending()).isFalse();
        assertThat(breakpoint.file()).hasValue("/s/a.c");
        assertThat(breakpoint.line()).isEqualTo(10);
    }

    @Test
    void pendingBreakpointHasNoLocation() {
        MiValue bkpt = results("^done,bkpt={number=\"1\",type=\"breakpoint\",disp=\"keep\",enabled=\"y\",addr=\"<PENDING>\","
                + "pending=\"nosuch.c:3\",times=\"0\",original-location=\"nosuch.c:3\"}").get("bkpt").orElseThrow();
        GdbBreakpoint breakpoint = GdbBreakpoint.parse(bkpt);
        assertThat(breakpoint.pending()).isTrue();
        assertThat(breakpoint.line()).isZero();
    }
}
