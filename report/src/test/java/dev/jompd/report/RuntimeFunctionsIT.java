package dev.jompd.report;

import dev.jompd.core.elf.ElfFile;
import dev.jompd.core.elf.ElfSymbol;
import dev.jompd.report.RuntimeFunctions.Row;
import dev.jompd.testkit.Runtimes;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every function pattern of {@code libomp-functions.table} names at least one function in the symbol table of
 * each libomp build we test: a function renamed or removed in a new libomp makes its row fail here, loudly,
 * instead of its frames silently reading as "not waiting".
 */
class RuntimeFunctionsIT {

    @ParameterizedTest(name = "libomp {0}")
    @MethodSource("dev.jompd.testkit.SupportedRuntimes#tested")
    void everyFunctionPatternNamesAFunctionOfTheRuntime(int version) throws IOException {
        Path libomp = Runtimes.libraryDirectory(version).resolve("libomp.so");
        List<String> functions = new ArrayList<>();
        try (ElfFile elf = ElfFile.open(libomp)) {
            for (ElfSymbol symbol : elf.symbolTable().all()) {
                if (symbol.type() == ElfSymbol.STT_FUNC) {
                    functions.add(symbol.name());
                }
            }
        }
        assertThat(functions).as("functions in the symbol table of " + libomp).hasSizeGreaterThan(1000);
        List<String> unmatched = new ArrayList<>();
        for (Row row : RuntimeFunctions.rows()) {
            if (!row.module() && functions.stream().noneMatch(f -> row.pattern().matcher(f).find())) {
                unmatched.add(row.meaning() + " " + row.pattern());
            }
        }
        assertThat(unmatched).as("rows of libomp-functions.table naming no function of libomp " + version).isEmpty();
    }
}
