package io.github.mongolock.cdi;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.github.mongolock.Locked;
import jakarta.enterprise.inject.Stereotype;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The methods the build-compatible extension finds on a bean class by itself ({@link LockedMethods#of}), with the
 * rules the portable extension applies to the container's annotated type: the same methods, the same {@code @Locked}.
 */
class LockedMethodsTest {

    @Locked("base-class")
    static class Base {
        public void inherited() {
        }

        @Locked("base-own")
        public void annotatedInBase() {
        }

        @Locked("overridden-in-base")
        public void overridden() {
        }
    }

    interface Reports {
        @Locked("default-method")
        default void report() {
        }

        default void unlockedDefault() {
        }
    }

    static class Bean extends Base implements Reports {
        @Override
        public void overridden() { // the override has no @Locked of its own: the class-level one governs it
        }

        @Locked("own")
        public String own() {
            return "";
        }

        public static void staticMethod() {
        }

        private void privateHelper() {
        }

        @Locked("private-own")
        private void privateTimer() {
        }

        @Override
        public String toString() {
            return "bean";
        }

        @Locked("locked-hash")
        @Override
        public int hashCode() {
            return 1;
        }
    }

    @Test
    void declaredInheritedAndDefaultMethodsWithTheirOwnOrTheClassLevelLocked() {
        // Bean inherits the class-level @Locked("base-class") of Base (@Locked is @Inherited).
        assertEquals(Map.of(
                "Base.inherited", "base-class",
                "Base.annotatedInBase", "base-own",
                "Bean.overridden", "base-class",
                "Bean.own", "own",
                "Bean.privateTimer", "private-own",
                "Bean.hashCode", "locked-hash",
                "Reports.report", "default-method",
                "Reports.unlockedDefault", "base-class"), names(LockedMethods.of(Bean.class)),
                "not: static methods, private methods without their own @Locked, toString, the overridden Base.overridden");
    }

    @Stereotype
    @Locked("from-stereotype")
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface Job {
    }

    @Stereotype
    @Job
    @Retention(RetentionPolicy.RUNTIME)
    @Target(ElementType.TYPE)
    @interface NightlyJob {
    }

    @NightlyJob
    static class Nightly {
        public void run() {
        }

        @Locked("own-wins")
        public void other() {
        }
    }

    static class Plain {
        public void run() {
        }
    }

    @Test
    void stereotypesNestedStereotypesAndNone() {
        assertEquals(Map.of("Nightly.run", "from-stereotype", "Nightly.other", "own-wins"), names(LockedMethods.of(Nightly.class)));
        assertEquals(Map.of(), names(LockedMethods.of(Plain.class)));
    }

    private static Map<String, String> names(Map<Method, Locked> found) {
        Map<String, String> names = new TreeMap<>();
        found.forEach((method, locked) -> names.put(method.getDeclaringClass().getSimpleName() + "." + method.getName(), String.join(",", locked.value())));
        return names;
    }
}
