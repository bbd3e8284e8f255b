package dev.jompd.report;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * Arrows point down: core knows no report and no door; the report (the one OpenMP picture and its
 * renderings) knows no door and never formats what core reads by reaching below the OMPD API. Each door
 * module has its own rule that it depends on core and the report, never on another door.
 */
@AnalyzeClasses(packages = "dev.jompd", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule coreKnowsNoReportAndNoDoor = noClasses().that().resideInAPackage("dev.jompd.core..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.report..", "dev.jompd.cli..",
                    "dev.jompd.gdb..", "dev.jompd.dap..");

    @ArchTest
    static final ArchRule reportKnowsNoDoor = noClasses().that().resideInAPackage("dev.jompd.report..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.cli..", "dev.jompd.gdb..", "dev.jompd.dap..");

    @ArchTest
    static final ArchRule reportReadsNoMemoryItself = noClasses().that().resideInAPackage("dev.jompd.report..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.core.memory..", "dev.jompd.core.elf..")
            .because("the picture is made of ompd-core's OMPD answers, not of raw memory or ELF reads");
}
