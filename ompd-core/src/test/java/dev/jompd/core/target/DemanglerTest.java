package dev.jompd.core.target;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Symbols read from a target may hold anything: one with a line end or a space in it must not shift
 * c++filt's answers to the names asked after it. The truth is c++filt itself, asked one name at a time.
 */
class DemanglerTest {
    @Test
    void aSymbolWithAControlCharacterStaysMangledAndTheNamesAfterItAreRight() throws Exception {
        List<String> hostile = List.of("_Z1av\r_Z1cv", "_Z1dv\n_Z1ev", "_Z1fv _Z1gv", "_Z1hv\u0085");
        List<String> clean = List.of("_Z1bv", "_ZN2ns3fooEi", "_Z3barIiEvT_.cold", "_Z1bv");
        try (Demangler demangler = new Demangler()) {
            for (int round = 0; round < hostile.size(); round++) {
                assertThat(demangler.demangle(hostile.get(round))).isEqualTo(hostile.get(round));
                assertThat(demangler.demangle(clean.get(round))).isEqualTo(cxxfilt(clean.get(round)));
            }
        }
        assertThat(cxxfilt("_ZN2ns3fooEi")).isEqualTo("ns::foo(int)"); // the truth is c++filt's, and it is there
    }

    /** c++filt's answer for one name, from a c++filt of its own. */
    private static String cxxfilt(String symbol) throws IOException, InterruptedException {
        Process process = new ProcessBuilder("c++filt", symbol).redirectErrorStream(true).start();
        String answer = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(process.waitFor()).isZero();
        return answer;
    }
}
