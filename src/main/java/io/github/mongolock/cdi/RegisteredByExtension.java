package io.github.mongolock.cdi;

import jakarta.enterprise.util.AnnotationLiteral;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks the {@link LockedInterceptor} type registered by {@link MongoLockExtension}, to tell it apart
 * from a copy found by bean discovery (containers differ in how they report added types).
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@interface RegisteredByExtension {

    @SuppressWarnings("all")
    final class Literal extends AnnotationLiteral<RegisteredByExtension> implements RegisteredByExtension {
        static final Literal INSTANCE = new Literal();
        private static final long serialVersionUID = 1L;
    }
}
