package dev.jompd.cli;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import dev.jompd.testkit.Fixture;
import dev.jompd.testkit.FixtureRun;
import dev.jompd.testkit.Fixtures;
import dev.jompd.testkit.LiveFixture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** `jompd inspect --pid`: the live report equals the core report of the same stop; the program goes on. */
class LiveInspectIT {

    @Test
    void liveAndCoreReportsOfTheSameStopAreIdenticalAndTheProgramFinishes(@TempDir Path dir) throws Exception {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "3", "2"))) {
            InspectCommandIT.Result liveReport = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()), "--json");
            assertThat(liveReport.exitCode()).as(liveReport.err()).isZero();

            Path core = dir.resolve("core");
            Process gcore = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(live.pid()),
                    "-ex", "gcore " + core).redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile()).start();
            assertThat(gcore.waitFor()).isZero();
            InspectCommandIT.Result coreReport = InspectCommandIT.jompd("inspect", "--core", core.toString(), "--json");
            assertThat(coreReport.exitCode()).as(coreReport.err()).isZero();

            JsonObject fromLive = JsonParser.parseString(liveReport.out()).getAsJsonObject();
            JsonObject fromCore = JsonParser.parseString(coreReport.out()).getAsJsonObject();
            for (String part : new String[] {"icvs", "regions", "threads", "displayControlVariables", "problems"}) {
                assertThat(fromLive.get(part)).as(part).isEqualTo(fromCore.get(part));
            }
            InspectCommandIT.assertThreadsAreTheRecordedOnes(fromLive, live.facts());

            String output = live.release();
            assertThat(output).contains("JOMPD_RESULT ok");
            assertThat(live.exitCode()).isZero();
        }
    }

    /**
     * A process gdb holds stopped cannot be attached (one tracer at a time): it is read as gdb holds it,
     * said so on stderr; the report names every thread the program recorded, and gdb's hold is undisturbed.
     */
    @Test
    void aProcessGdbHoldsIsReadAsItHoldsIt(@TempDir Path dir) throws Exception {
        try (LiveFixture live = Fixtures.live(FixtureRun.of(Fixture.NESTED, "2", "2"))) {
            Path holding = dir.resolve("gdb-holds");
            Path done = dir.resolve("done");
            Process gdb = new ProcessBuilder("gdb", "-batch", "-nx", "-p", Long.toString(live.pid()), "-ex",
                    "shell touch " + holding + "; while [ ! -e " + done + " ]; do sleep 0.05; done")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("gdb.log").toFile()).start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(holding) && System.nanoTime() < deadline && gdb.isAlive()) {
                    Thread.sleep(20);
                }
                assertThat(holding).as(Files.readString(dir.resolve("gdb.log"))).exists();

                InspectCommandIT.Result report = InspectCommandIT.jompd("inspect", "--pid", Long.toString(live.pid()), "--json");
                assertThat(report.exitCode()).as(report.err()).isZero();
                assertThat(report.err()).contains("is held by gdb").contains("read without ptrace");
                InspectCommandIT.assertThreadsAreTheRecordedOnes(JsonParser.parseString(report.out()).getAsJsonObject(),
                        live.facts());
            } finally {
                Files.writeString(done, "");
                gdb.waitFor(60, TimeUnit.SECONDS);
            }
            assertThat(gdb.exitValue()).as("gdb detached as usual").isZero();
            assertThat(live.release()).contains("JOMPD_RESULT ok");
        }
    }

    @Test
    void aProcessThatDoesNotExistIsBadInput() {
        InspectCommandIT.Result result = InspectCommandIT.jompd("inspect", "--pid", "999999999");
        assertThat(result.exitCode()).isEqualTo(3);
        assertThat(result.err()).containsIgnoringCase("no process with id 999999999");
    }
}
