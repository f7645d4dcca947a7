package io.github.mongolock.examples.jobs;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Records every scheduled run of a method, the skipped ones too ({@link TickTraceInterceptor}): it shows that a
 * skipped tick does not end a Jakarta Concurrency schedule, and which interceptor runs inside which.
 */
@InterceptorBinding
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.TYPE})
public @interface TickTrace {
}
