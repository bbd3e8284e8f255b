package dev.jompd.libompd;

import com.code_intelligence.jazzer.junit.FuzzTest;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;

/**
 * Arbitrary bytes as the shim's side of the pipe (calls, and answers to the engine's questions), into the engine:
 * it may end only as it does when the debugger goes away or breaks the protocol (EOFException, a
 * Wire.ProtocolException, or an UncheckedIOException around an EOFException from inside a call), never with any
 * other exception, never hang. Seeds in WireFuzzTestInputs/: call sequences of gdb's OMPD plugin as the shim frames
 * them (written by WireFuzzTest.main). JAZZER_FUZZ=1 fuzzes for maxDuration.
 */
class WireFuzzTest {
    @FuzzTest(maxDuration = "5s")
    void theEngineEndsOnArbitraryShimBytesOnlyAsOnAProtocolError(byte[] data) throws IOException {
        Engine engine = new Engine(new Wire(new ByteArrayInputStream(data), OutputStream.nullOutputStream()));
        try {
            engine.serve();
        } catch (EOFException | Wire.ProtocolException expected) {
            // the debugger went away, or does not speak the protocol
        } catch (UncheckedIOException e) {
            if (!(e.getCause() instanceof EOFException)) {
                throw e;
            }
        }
    }

    /** Writes seeds into {@code args[0]}: a process_initialize answered by a few reads, and calls with handles. */
    public static void main(String[] args) throws IOException {
        java.nio.file.Path directory = java.nio.file.Path.of(args[0]);
        java.io.ByteArrayOutputStream session = new java.io.ByteArrayOutputStream();
        // ompd_process_initialize(api 202011) of process 1; the engine asks the type sizes, symbols and memory
        session.writeBytes(call(Engine.PROCESS_INITIALIZE).word(1).word(202011).bytes());
        session.writeBytes(new Wire.Frame(Wire.ANSWER).word(0).blob(new byte[] {1, 2, 4, 8, 8, 8}).bytes());
        for (int i = 0; i < 4; i++) {
            session.writeBytes(new Wire.Frame(Wire.ANSWER).word(0).word(0x7f0000001000L + 64L * i).bytes());
            session.writeBytes(new Wire.Frame(Wire.ANSWER).word(0).blob(new byte[] {5, 0, 0, 0, 0, 0, 0, 0}).bytes());
        }
        session.writeBytes(new Wire.Frame(Wire.ANSWER).word(3).bytes()); // a read the shim could not do
        java.nio.file.Files.write(directory.resolve("process-initialize"), session.toByteArray());
        java.io.ByteArrayOutputStream calls = new java.io.ByteArrayOutputStream();
        calls.writeBytes(call(Engine.GET_OMP_VERSION).word(1).bytes());
        calls.writeBytes(call(Engine.ENUMERATE_STATES).word(1).word(0).bytes());
        calls.writeBytes(call(Engine.ENUMERATE_ICVS).word(1).word(0).bytes());
        calls.writeBytes(call(Engine.GET_THREAD_HANDLE).word(1).word(0).blob(new byte[8]).bytes());
        calls.writeBytes(call(Engine.RELEASE_ADDRESS_SPACE).word(1).bytes());
        java.nio.file.Files.write(directory.resolve("calls"), calls.toByteArray());
    }

    /** A call frame's head: the routine (u16) as the shim writes it. */
    private static Wire.Frame call(int routine) {
        return new Wire.Frame(Wire.CALL).u8(routine & 0xff).u8(routine >>> 8);
    }
}
