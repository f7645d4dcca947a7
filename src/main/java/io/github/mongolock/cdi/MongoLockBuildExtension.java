package io.github.mongolock.cdi;

import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.memory.InMemoryLocks;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.inject.build.compatible.spi.BeanInfo;
import jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension;
import jakarta.enterprise.inject.build.compatible.spi.ClassConfig;
import jakarta.enterprise.inject.build.compatible.spi.Enhancement;
import jakarta.enterprise.inject.build.compatible.spi.Messages;
import jakarta.enterprise.inject.build.compatible.spi.Registration;
import jakarta.enterprise.inject.build.compatible.spi.SkipIfPortableExtensionPresent;
import jakarta.enterprise.inject.build.compatible.spi.Synthesis;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticComponents;
import jakarta.enterprise.inject.build.compatible.spi.Validation;
import jakarta.enterprise.lang.model.declarations.ClassInfo;
import jakarta.inject.Singleton;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * mongolock's CDI Lite build-compatible extension (registered in
 * {@code META-INF/services/jakarta.enterprise.inject.build.compatible.spi.BuildCompatibleExtension}), for
 * containers that run no portable extensions: Quarkus. Containers that do (Weld: Open Liberty, Payara, WildFly,
 * Weld SE) skip it and run {@link MongoLockExtension}; both share every rule and message.
 *
 * <p>When the application is built it reads the configuration the build sees and checks every setting and every
 * {@code @Locked} method of every class bean against its annotation and that configuration, with the same
 * messages ({@code MONGOLOCK-CDI-0xx}, reported together through {@link Messages#error(String)}: the build
 * fails); only what needs the running application (the connection, values the build cannot resolve yet) waits
 * for the startup. It sets the interceptor's priority from
 * {@code mongolock.interceptor.priority}, makes {@link MongoLockReadinessCheck} a readiness check where
 * MicroProfile Health is present, and registers synthetic beans: {@link MongoLockConfiguration} (read from
 * MicroProfile Config when the application starts: every setting, every override key, and the same checks of
 * the {@code @Locked} methods against them), the {@code LockManager} (also {@link LockStoreStatus}),
 * {@link Leaderships}, the {@link LockedOperations} the interceptor runs and, when the build sees
 * {@code mongolock.uri=memory:} (a test profile), the {@code @Singleton} {@link InMemoryLocks} whose store the
 * manager runs on and whose controls a test injects; and it makes
 * {@link BuildExtensionLifecycle} a bean, whose observers read the configuration, create the manager and join the
 * elections at startup (so a configuration problem fails the startup with all its messages at once), and leave
 * the elections when the application begins to stop; the manager is closed with the application.
 *
 * <p>The container calls the phases one after the other; the state between them is written by one thread at a time.
 */
@SkipIfPortableExtensionPresent(MongoLockExtension.class)
public class MongoLockBuildExtension implements BuildCompatibleExtension {

    /** Parameter of the configuration bean: the bean classes that have {@code @Locked} methods. */
    static final String LOCKED_BEANS = "mongolock.locked-beans";
    /** Parameter of the configuration bean: the interceptor priority the application was built with. */
    static final String BUILT_PRIORITY = "mongolock.interceptor-priority";
    /** Parameter of the configuration bean: whether the build saw {@code mongolock.uri=memory:} (an {@link InMemoryLocks} bean). */
    static final String BUILT_IN_MEMORY = "mongolock.in-memory";

    private final List<String> problems = new ArrayList<>();
    private final Set<String> lockedBeans = new TreeSet<>();
    /** The configuration as the build sees it; read again, and checked again, when the application starts. */
    private MongoLockConfiguration built;

    private MongoLockConfiguration built() {
        if (built == null) {
            built = MongoLockConfiguration.read(ConfigReader.whileBuilding(ConfigProvider.getConfig()), problems);
        }
        return built;
    }

    /** The interceptor's priority is part of the build: read from the configuration the build sees. */
    @Enhancement(types = LockedInterceptor.class)
    public void interceptorPriority(ClassConfig interceptor) {
        int priority = built().settings().interceptorPriority();
        if (priority != LockedInterceptor.DEFAULT_PRIORITY) {
            interceptor.removeAnnotation(annotation -> annotation.name().equals(Priority.class.getName()))
                    .addAnnotation(new PriorityLiteral(priority));
        }
    }

    /** The observers of the application's start and stop: a bean only where this extension runs. */
    @Enhancement(types = BuildExtensionLifecycle.class)
    public void lifecycle(ClassConfig lifecycle) {
        lifecycle.addAnnotation(Dependent.class);
    }

    /** The readiness check becomes a bean only where the application has MicroProfile Health. */
    @Enhancement(types = MongoLockReadinessCheck.class)
    public void readinessCheck(ClassConfig check) {
        if (OptionalApi.present(OptionalApi.HEALTH)) {
            check.addAnnotation(ApplicationScoped.class).addAnnotation(org.eclipse.microprofile.health.Readiness.class);
        }
    }

    /** Every class bean that mentions {@code @Locked}: check its methods, and remember it for the startup. */
    @Registration(types = Object.class)
    public void lockedMethods(BeanInfo bean) {
        if (!bean.isClassBean() || bean.isInterceptor() || !mentionsLocked(bean)) {
            return;
        }
        String name = bean.declaringClass().name();
        Class<?> beanClass;
        try {
            beanClass = Class.forName(name, false, Thread.currentThread().getContextClassLoader());
        } catch (ClassNotFoundException | LinkageError unloadable) {
            problems.add(CdiMessages.beanClassUnreadable(name, unloadable.toString()));
            return;
        }
        if (!LockedMethods.of(beanClass).isEmpty()) {
            lockedBeans.add(name);
            built().operations().registerAll(beanClass, problems);
        }
    }

    /**
     * Whether the class, a superclass or an interface carries {@code @Locked} on the class or a method, or the bean
     * has stereotypes (which may): only such classes are loaded to be checked.
     */
    private static boolean mentionsLocked(BeanInfo bean) {
        if (!bean.stereotypes().isEmpty()) {
            return true;
        }
        List<ClassInfo> pending = new ArrayList<>(List.of(bean.declaringClass()));
        Set<String> seen = new TreeSet<>();
        while (!pending.isEmpty()) {
            ClassInfo type = pending.remove(pending.size() - 1);
            if (type == null || !seen.add(type.name())) {
                continue;
            }
            if (type.hasAnnotation(Locked.class) || type.methods().stream().anyMatch(method -> method.hasAnnotation(Locked.class))) {
                return true;
            }
            pending.add(type.superClassDeclaration());
            pending.addAll(type.superInterfacesDeclarations());
        }
        return false;
    }

    @Synthesis
    public void beans(SyntheticComponents components) {
        components.addBean(MongoLockConfiguration.class)
                .type(MongoLockConfiguration.class)
                .scope(Singleton.class)
                .withParam(LOCKED_BEANS, lockedBeans.toArray(String[]::new))
                .withParam(BUILT_PRIORITY, built().settings().interceptorPriority())
                .withParam(BUILT_IN_MEMORY, built().settings().inMemory())
                .createWith(BuildExtensionBeans.ConfigurationCreator.class);
        components.addBean(LockedOperations.class)
                .type(LockedOperations.class)
                .scope(Singleton.class)
                .createWith(BuildExtensionBeans.OperationsCreator.class);
        components.addBean(ApplicationLockManager.class)
                .type(LockManager.class)
                .type(LockStoreStatus.class)
                .scope(ApplicationScoped.class)
                .createWith(BuildExtensionBeans.ManagerCreator.class)
                .disposeWith(BuildExtensionBeans.ManagerDisposer.class);
        if (built().settings().inMemory()) {
            // As MongoLockExtension does: the store all of the application's locks live in; a test injects it to
            // reach the controls. Singleton, not application-scoped: InMemoryLocks is final, ArC cannot proxy it.
            components.addBean(InMemoryLocks.class)
                    .type(InMemoryLocks.class)
                    .scope(Singleton.class)
                    .createWith(BuildExtensionBeans.InMemoryLocksCreator.class)
                    .disposeWith(BuildExtensionBeans.InMemoryLocksDisposer.class);
        }
        components.addBean(Leaderships.class)
                .type(Leaderships.class)
                .scope(ApplicationScoped.class)
                .createWith(BuildExtensionBeans.LeadershipsCreator.class)
                .disposeWith(BuildExtensionBeans.LeadershipsDisposer.class);
    }

    /** Every problem found while building, together: the build fails. */
    @Validation
    public void report(Messages messages) {
        ConfigurationProblems.logged(problems).forEach(messages::error);
    }
}
