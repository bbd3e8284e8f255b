package dev.jompd.dap.session;

import dev.jompd.core.launch.OpenMpLaunch;
import dev.jompd.core.launch.RecorderTool;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The environment gdb (and so the launched program) starts with: the server's own, the launch's
 * {@code environment}, {@code OMP_DEBUG=enabled}, jompd's libomp for a program built for GCC's libgomp
 * ({@code openmpRuntime}) and the jompd-recorder ({@code recorder}); each choice said in the console.
 */
final class LaunchEnvironment {
    private LaunchEnvironment() {}

    /** The environment for {@code config}; {@code console} gets the lines the user should read. */
    static Map<String, String> of(LaunchConfig config, Consumer<String> console) {
        Map<String, String> environment = new LinkedHashMap<>(System.getenv());
        if (config.kind() != LaunchConfig.Kind.LAUNCH) {
            return environment;
        }
        environment.putAll(config.environment());
        // libomp tracks thread states, task frames and tool data only with OMP_DEBUG=enabled
        environment.putIfAbsent("OMP_DEBUG", "enabled");
        if (config.program().isPresent()) {
            // gcc/gfortran programs run on jompd's libomp (GCC's libgomp has no debugging interface): said
            // in the debug console, as the launch attribute openmpRuntime chooses.
            OpenMpLaunch.Launch launch = OpenMpLaunch.decide(config.program().get(), config.openmpRuntime(), environment);
            environment = new LinkedHashMap<>(launch.environment());
            if (!launch.message().isEmpty()) {
                console.accept("jompd: " + launch.message() + "\n");
            }
        }
        if (config.recorder()) {
            environment = new LinkedHashMap<>(withRecorder(environment, console));
        }
        return environment;
    }

    /** The launch attribute {@code recorder}: the environment that loads the jompd-recorder, said in the console. */
    private static Map<String, String> withRecorder(Map<String, String> environment, Consumer<String> console) {
        Path library;
        try {
            library = RecorderTool.library(RecorderTool.script(serverHome()), environment,
                    line -> console.accept("jompd-recorder: " + line + "\n"));
        } catch (IllegalStateException e) {
            throw new DapException(ErrorId.LAUNCH_FAILED, "launch: `recorder`: " + e.getMessage(), e);
        }
        console.accept("jompd: " + RecorderTool.notice(environment, library) + "\n");
        return RecorderTool.environment(environment, library);
    }

    /** The server's installation (its jar's directory's parent), or the build tree's module directory. */
    private static Path serverHome() {
        try {
            Path code = Path.of(LaunchEnvironment.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return code.getParent().getParent();
        } catch (URISyntaxException | RuntimeException e) {
            return Path.of(".").toAbsolutePath();
        }
    }
}
