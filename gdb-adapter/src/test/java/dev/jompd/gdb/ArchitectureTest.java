package dev.jompd.gdb;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/** The gdb bridge renders the shared picture: it never reaches into the command line or the DAP server. */
@AnalyzeClasses(packages = "dev.jompd.gdb", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule bridgeDependsOnNoOtherDoor = noClasses().should().dependOnClassesThat()
            .resideInAnyPackage("dev.jompd.cli..", "dev.jompd.dap..");

    @ArchTest
    static final ArchRule handlersReadNoMemory = noClasses().that().haveSimpleNameStartingWith("Handlers")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.core.memory..", "dev.jompd.core.elf..");
}
