package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.mongolock.LockConfigurationException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Name templates are parsed once; rendering only inserts arguments. */
class NameTemplateTest {

    public void charge(String accountId, long cents) {
    }

    private static Method charge() throws NoSuchMethodException {
        return NameTemplateTest.class.getMethod("charge", String.class, long.class);
    }

    @Test
    void rendersLiteralsPositionsNamesAndEscapedBraces() throws Exception {
        List<String> problems = new ArrayList<>();
        NameTemplate template = NameTemplate.parse("{{a}}-{accountId}-{ 1 }-{0}", charge(), "charge", problems).orElseThrow();
        assertEquals(List.of(), problems);
        assertEquals("{a}-x-5-x", template.render(new Object[] {"x", 5L}));
        LockConfigurationException nullArgument = assertThrows(LockConfigurationException.class,
                () -> template.render(new Object[] {null, 5L}));
        assertTrue(nullArgument.getMessage().startsWith("MONGOLOCK-CDI-022: @Locked(\"{{a}}-{accountId}-{ 1 }-{0}\") on charge"
                + " was called with argument {0} (accountId) null"), nullArgument.getMessage());
        assertEquals("{{a}}-{0}-{1}-{0}", template.toString());
        assertTrue(!template.isStatic());
        NameTemplate unnamed = NameTemplate.parse("", charge(), "charge", problems).orElseThrow();
        assertEquals(NameTemplateTest.class.getName() + ".charge", unnamed.render(new Object[] {"x", 1L}));
        assertTrue(unnamed.isStatic());
    }

    @Test
    void aParameterNameNeedsTheParametersFlag(@TempDir Path dir) throws Exception {
        Path source = dir.resolve("probe/NoNames.java");
        Files.createDirectories(source.getParent());
        Files.writeString(source, "package probe; public class NoNames { public void m(String id) { } }");
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertEquals(0, javac.run(null, null, null, "-d", dir.toString(), source.toString()), "compiled without -parameters");
        try (URLClassLoader loader = new URLClassLoader(new URL[] {dir.toUri().toURL()}, getClass().getClassLoader())) {
            Method method = loader.loadClass("probe.NoNames").getMethod("m", String.class);
            List<String> problems = new ArrayList<>();
            Optional<NameTemplate> named = NameTemplate.parse("x-{id}", method, "probe.NoNames.m(String)", problems);
            assertTrue(named.isEmpty());
            assertEquals(List.of("MONGOLOCK-CDI-005: @Locked(\"x-{id}\") on probe.NoNames.m(String) refers to the parameter {id},"
                    + " but probe.NoNames.m(String) was compiled without parameter names. Compile with javac -parameters,"
                    + " or refer to the argument by position, e.g. {0}."), problems);
            assertEquals("x-7", NameTemplate.parse("x-{0}", method, "m", problems).orElseThrow().render(new Object[] {7}));
        }
    }

    @Test
    void aTooLongStaticNameIsRejectedAtDeployment() throws Exception {
        List<String> problems = new ArrayList<>();
        assertTrue(NameTemplate.parse("n".repeat(513), charge(), "charge", problems).isEmpty());
        assertEquals(1, problems.size());
        assertTrue(problems.get(0).startsWith("MONGOLOCK-CDI-007: @Locked on charge gives an invalid lock name: Lock name \"nnn"),
                problems.get(0));
        assertTrue(problems.get(0).contains("is 513 UTF-8 bytes long: at most 512 are allowed"), problems.get(0));
    }
}
