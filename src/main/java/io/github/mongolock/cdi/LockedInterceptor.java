package io.github.mongolock.cdi;

import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Intercepted;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.AroundTimeout;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.io.Serializable;

/**
 * Runs {@code @Locked} methods while holding their lock: a thin adapter that looks up the
 * {@link LockedOperation} resolved at deployment for (bean class, method) and runs it with the
 * application's {@link LockManager}.
 *
 * <p>Enabled by its {@link Priority}; {@code mongolock.interceptor.priority} replaces the default
 * {@link #DEFAULT_PRIORITY} (PLATFORM_BEFORE + 100: outside {@code @Transactional}, so the
 * transaction commits before the lock is released; inside Jakarta Concurrency's {@code @Asynchronous},
 * so the wait happens on the asynchronous thread). Serializable, so passivating beans may use it.
 */
@Locked
@Interceptor
@Priority(LockedInterceptor.DEFAULT_PRIORITY)
public class LockedInterceptor implements Serializable {

    /** {@code jakarta.interceptor.Interceptor.Priority.PLATFORM_BEFORE + 100}. */
    public static final int DEFAULT_PRIORITY = Interceptor.Priority.PLATFORM_BEFORE + 100;

    private static final long serialVersionUID = 1L;

    @Inject
    LockManager locks;

    /** Registered by whichever extension resolved the methods: the portable one, or the build-compatible one. */
    @Inject
    LockedOperations operations;

    /** The intercepted bean; Weld leaves it null for some pseudo-scoped beans, then the target's class decides. */
    @Inject
    @Intercepted
    Bean<?> bean;

    @AroundInvoke
    Object lock(InvocationContext invocation) throws Exception {
        if (LockedMethods.isObjectMethod(invocation.getMethod())
                && !invocation.getMethod().isAnnotationPresent(Locked.class)) {
            return invocation.proceed(); // reached through a class-level binding, which never locks object methods
        }
        LockedOperation operation = bean != null
                ? operations.get(bean.getBeanClass(), invocation.getMethod())
                : operations.get(invocation.getTarget(), invocation.getMethod());
        return operation.invoke(locks, invocation);
    }

    /**
     * EJB timer callbacks ({@code @Schedule}, {@code @Timeout}) are not business-method invocations,
     * so {@code @AroundInvoke} alone would leave a {@code @Locked @Schedule} job unlocked; scheduled
     * jobs are the commonest use of {@code onBusy = SKIP}. (Containers without EJBs, such as Quarkus,
     * never call it: their schedulers call business methods, which {@code @AroundInvoke} covers.)
     */
    @AroundTimeout
    Object lockTimerCallback(InvocationContext invocation) throws Exception {
        return lock(invocation);
    }
}
