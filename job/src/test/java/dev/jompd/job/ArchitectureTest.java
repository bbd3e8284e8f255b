package dev.jompd.job;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The job module's parts point one way: the model (what a rank looks like, how summaries merge) knows none of the
 * others; the wire knows only the model; the sources (how ranks are found and read) and the rendering (what people
 * see) know the model and the wire, never each other; and the module knows no door.
 */
@AnalyzeClasses(packages = "dev.jompd.job", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {
    @ArchTest
    static final ArchRule theModelKnowsNoOtherPart = noClasses().that().resideInAPackage("dev.jompd.job.model..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.job.wire..", "dev.jompd.job.sources..",
                    "dev.jompd.job.rendering..");

    @ArchTest
    static final ArchRule theWireKnowsOnlyTheModel = noClasses().that().resideInAPackage("dev.jompd.job.wire..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.job.sources..", "dev.jompd.job.rendering..");

    @ArchTest
    static final ArchRule sourcesDoNotRender = noClasses().that().resideInAPackage("dev.jompd.job.sources..")
            .should().dependOnClassesThat().resideInAPackage("dev.jompd.job.rendering..");

    @ArchTest
    static final ArchRule renderingReadsNoRank = noClasses().that().resideInAPackage("dev.jompd.job.rendering..")
            .should().dependOnClassesThat().resideInAPackage("dev.jompd.job.sources..")
            .because("the renderers see only the merged picture");

    @ArchTest
    static final ArchRule theJobKnowsNoDoor = noClasses().that().resideInAPackage("dev.jompd.job..")
            .should().dependOnClassesThat().resideInAnyPackage("dev.jompd.cli..", "dev.jompd.gdb..", "dev.jompd.dap..");
}
