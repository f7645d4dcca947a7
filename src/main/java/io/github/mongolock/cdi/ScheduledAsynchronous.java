package io.github.mongolock.cdi;

import java.lang.annotation.Annotation;
import java.lang.reflect.Array;
import java.lang.reflect.Method;

/**
 * Recognises a method that Jakarta Concurrency 3.1 (Jakarta EE 11) runs on a schedule:
 * {@code @jakarta.enterprise.concurrent.Asynchronous(runAt = @Schedule(...))}. Read by name and reflection,
 * so the library needs no Concurrency API, and a server without Concurrency 3.1 (where {@code runAt} does not
 * exist) answers no. Stateless.
 *
 * <p>Why it matters: such a method runs at every scheduled time until it returns a non-null value or throws
 * (the {@code runAt} Javadoc). A skipped run must therefore return {@code null}, never a completed future,
 * or the first busy tick would end the schedule on that instance for good.
 */
final class ScheduledAsynchronous {

    static final String ASYNCHRONOUS = "jakarta.enterprise.concurrent.Asynchronous";

    private ScheduledAsynchronous() {
    }

    /** Whether {@code method} carries Concurrency's {@code @Asynchronous} with a non-empty {@code runAt}. */
    static boolean isScheduled(Method method) {
        for (Annotation annotation : method.getAnnotations()) {
            Class<? extends Annotation> type = annotation.annotationType();
            if (type.getName().equals(ASYNCHRONOUS)) {
                try {
                    Object runAt = type.getMethod("runAt").invoke(annotation);
                    return runAt != null && runAt.getClass().isArray() && Array.getLength(runAt) > 0;
                } catch (NoSuchMethodException concurrency30) {
                    return false; // Concurrency 3.0 (Jakarta EE 10): @Asynchronous runs once, there is no schedule
                } catch (ReflectiveOperationException | RuntimeException unreadable) {
                    return false;
                }
            }
        }
        return false;
    }
}
