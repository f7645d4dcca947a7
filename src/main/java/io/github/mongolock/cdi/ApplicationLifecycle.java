package io.github.mongolock.cdi;

import io.github.mongolock.LockManager;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanContainer;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * What happens to mongolock's beans as the application starts and stops, whichever extension registered them:
 * the manager is created at startup (so connection settings take effect, and readiness reports, before the
 * first call) and the elections are joined; they are left as soon as the application begins to stop.
 */
final class ApplicationLifecycle {

    private ApplicationLifecycle() {
    }

    /**
     * Creates the {@code LockManager} bean and, when {@code joinElections}, the {@link Leaderships} bean, which
     * joins them.
     *
     * @param ours picks mongolock's beans among those of these types
     */
    static void start(BeanContainer beans, Predicate<Bean<?>> ours, boolean joinElections) {
        find(beans, LockManager.class, ours).ifPresent(bean -> startNow(beans, bean));
        if (joinElections) {
            find(beans, Leaderships.class, ours).ifPresent(bean -> startNow(beans, bean));
        }
    }

    /**
     * Leaves the elections while the beans observing {@link io.github.mongolock.LeadershipRevoked} still exist:
     * each leadership held is revoked ({@code LEFT}), then its lock released, so another instance can be elected
     * at its next poll. Nothing happens when the bean was never created.
     */
    static void leaveElections(BeanContainer beans, Predicate<Bean<?>> ours) {
        find(beans, Leaderships.class, ours).ifPresent(bean -> {
            Object running = beans.getContext(ApplicationScoped.class).get(bean); // null when never created
            if (running instanceof ApplicationLeaderships leaderships) {
                leaderships.leave();
            }
        });
    }

    private static Optional<Bean<?>> find(BeanContainer beans, Class<?> type, Predicate<Bean<?>> ours) {
        return beans.getBeans(type).stream().filter(ours).findFirst();
    }

    private static <T> void startNow(BeanContainer beans, Bean<T> bean) {
        beans.getContext(ApplicationScoped.class).get(bean, beans.createCreationalContext(bean));
    }
}
