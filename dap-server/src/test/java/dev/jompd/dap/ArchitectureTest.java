package dev.jompd.dap;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The DAP server renders the shared picture: it never reaches into the command line or the gdb bridge. */
@AnalyzeClasses(packages = "dev.jompd.dap", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule serverDependsOnNoOtherDoor = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.jompd.cli..", "dev.jompd.gdb..");

    @ArchTest
    static final ArchRule sessionReadsNoMemory = noClasses().that().resideInAPackage("dev.jompd.dap.session..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.core.memory..", "dev.jompd.core.elf..");
}
