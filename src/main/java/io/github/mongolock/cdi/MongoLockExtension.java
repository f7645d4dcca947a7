package io.github.mongolock.cdi;

import com.mongodb.client.MongoClient;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.memory.InMemoryLocks;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Dependent;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.spi.AfterBeanDiscovery;
import jakarta.enterprise.inject.spi.AfterDeploymentValidation;
import jakarta.enterprise.inject.spi.AnnotatedMethod;
import jakarta.enterprise.inject.spi.AnnotatedType;
import jakarta.enterprise.inject.spi.Bean;
import jakarta.enterprise.inject.spi.BeanManager;
import jakarta.enterprise.inject.spi.BeforeBeanDiscovery;
import jakarta.enterprise.inject.spi.Extension;
import jakarta.enterprise.inject.spi.ProcessAnnotatedType;
import jakarta.enterprise.inject.spi.ProcessBean;
import jakarta.enterprise.inject.spi.ProcessManagedBean;
import jakarta.enterprise.inject.spi.configurator.AnnotatedTypeConfigurator;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * mongolock's CDI portable extension (registered in
 * {@code META-INF/services/jakarta.enterprise.inject.spi.Extension}).
 *
 * <p>While the application deploys it reads the {@code mongolock.*} configuration, sets the
 * {@link LockedInterceptor}'s priority, resolves every {@code @Locked} method of every managed bean
 * and session bean into a {@link LockedOperation}, and registers the {@code @ApplicationScoped}
 * {@link LockManager} bean, the {@link Leaderships} bean that joins the leader elections configured in
 * {@code mongolock.leadership.*} when the application starts and leaves them when it stops, and the
 * {@link LockedOperations} bean through which the interceptor finds the resolved methods. All problems found (bad durations, unknown template references,
 * {@code SKIP} on a method that must return a value, missing or invalid connection settings) are
 * reported together through {@link AfterBeanDiscovery#addDefinitionError}, so a misconfigured
 * application does not start. After validation the manager is created eagerly, so whatever the core
 * still rejects also fails the deployment rather than the first call.
 *
 * <p>One instance per container; its state is only written on the deployment thread. Containers that run
 * build-compatible extensions instead (Quarkus) use {@link MongoLockBuildExtension}, which Weld-based
 * containers skip because this extension is present.
 */
public class MongoLockExtension implements Extension {

    private final Config explicitConfig;
    private final List<String> problems = new ArrayList<>();
    private MongoLockConfiguration configuration;
    private LockManagerSettings settings;
    private LockedOperations operations;
    private boolean mongoClientBean;
    /** The application's {@code @Default MongoClient} bean, if any, as discovered. */
    private Bean<?> clientBean;
    private boolean managerRegistered;

    /** The extension as the container loads it: configuration from {@link ConfigProvider#getConfig()}. */
    public MongoLockExtension() {
        this(null);
    }

    /**
     * An extension reading the given configuration instead of {@link ConfigProvider#getConfig()}: for
     * containers booted by hand (e.g. Weld SE) that need a configuration of their own.
     */
    public MongoLockExtension(Config config) {
        this.explicitConfig = config;
    }

    private void prepare() {
        if (settings == null) {
            configuration = MongoLockConfiguration.read(
                    new ConfigReader(explicitConfig != null ? explicitConfig : ConfigProvider.getConfig()), problems);
            settings = configuration.settings();
            operations = configuration.operations();
        }
    }

    /**
     * Registers the interceptor. Whether or not the library's own bean archive is scanned (a server scans it, a
     * hand-booted container may not), exactly this one registration is used: a discovered copy is vetoed in
     * {@link #interceptorType}, which also gives this one the configured priority. No setting is read here: a runtime
     * may put the application's configuration in place in its own observer of this event (Helidon's test support
     * does, at the default priority, after a bootstrap configuration without the application's sources), and
     * observers of one priority run in no defined order.
     */
    void addInterceptor(@Observes BeforeBeanDiscovery discovery) {
        discovery.addAnnotatedType(LockedInterceptor.class, LockedInterceptor.class.getName() + "#mongolock")
                .add(RegisteredByExtension.Literal.INSTANCE);
    }

    /**
     * The interceptor's type, discovered or registered above: a discovered copy is vetoed; the registered one gets the
     * configured priority. The settings are read here at the latest, once {@code BeforeBeanDiscovery} is over.
     */
    void interceptorType(@Observes ProcessAnnotatedType<LockedInterceptor> type) {
        if (!type.getAnnotatedType().isAnnotationPresent(RegisteredByExtension.class)) {
            type.veto();
            return;
        }
        prepare();
        if (settings.interceptorPriority() != LockedInterceptor.DEFAULT_PRIORITY) {
            setPriority(type.configureAnnotatedType());
        }
    }

    private void setPriority(AnnotatedTypeConfigurator<LockedInterceptor> type) {
        type.remove(annotation -> annotation.annotationType() == Priority.class)
                .add(new PriorityLiteral(settings.interceptorPriority()));
    }

    /** Every managed bean and (a subtype event) session bean: resolve its {@code @Locked} methods. */
    void lockedMethods(@Observes ProcessManagedBean<?> bean, BeanManager beans) {
        prepare();
        if (bean.getBean() instanceof jakarta.enterprise.inject.spi.Interceptor<?>
                || bean.getBean() instanceof jakarta.enterprise.inject.spi.Decorator<?>) {
            return;
        }
        AnnotatedType<?> type = bean.getAnnotatedBeanClass();
        Class<?> beanClass = bean.getBean().getBeanClass();
        Locked onClass = type.isAnnotationPresent(Locked.class) ? type.getAnnotation(Locked.class)
                : LockedMethods.fromStereotypes(type.getAnnotations(), beans::isStereotype, beans::getStereotypeDefinition);
        for (AnnotatedMethod<?> annotated : type.getMethods()) {
            Method method = annotated.getJavaMember();
            LockedMethods.effective(method, annotated.getAnnotation(Locked.class), onClass)
                    .ifPresent(locked -> operations.register(beanClass, method, locked, problems));
        }
    }

    /** Notes whether the application has a {@code @Default MongoClient} bean to use when no URI is configured. */
    void mongoClients(@Observes ProcessBean<?> bean) {
        Bean<?> candidate = bean.getBean();
        if (candidate.getTypes().contains(MongoClient.class)
                && candidate.getQualifiers().stream().anyMatch(q -> q.annotationType() == Default.class)) {
            mongoClientBean = true;
            clientBean = candidate;
        }
    }

    void registerManager(@Observes AfterBeanDiscovery discovery) {
        prepare();
        problems.addAll(settings.connectionProblems(mongoClientBean));
        Set<String> distinct = ConfigurationProblems.logged(problems);
        if (!distinct.isEmpty()) {
            distinct.forEach(problem -> discovery.addDefinitionError(new LockConfigurationException(problem)));
            return;
        }
        LockManagerSettings resolved = settings;
        Bean<?> applicationClient = clientBean;
        discovery.addBean()
                .beanClass(MongoLockExtension.class)
                .types(LockManager.class, LockStoreStatus.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(ApplicationScoped.class)
                .produceWith(lookup -> ApplicationBeans.createManager(resolved, lookup, applicationClient))
                .disposeWith((manager, lookup) -> manager.close());
        if (resolved.inMemory()) {
            // The store all of the application's locks live in; a test injects it to reach the controls.
            discovery.addBean()
                    .beanClass(MongoLockExtension.class)
                    .types(InMemoryLocks.class, Object.class)
                    .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                    .scope(Singleton.class)
                    .produceWith(lookup -> new InMemoryLocks())
                    .disposeWith((locks, lookup) -> locks.close());
        }
        LeadershipSettings elections = configuration.leadership();
        discovery.addBean()
                .beanClass(MongoLockExtension.class)
                .types(Leaderships.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(ApplicationScoped.class)
                .produceWith(lookup -> ApplicationBeans.createLeaderships(elections, lookup))
                .disposeWith((leaderships, lookup) -> leaderships.leave());
        LockedOperations resolvedOperations = operations;
        discovery.addBean()
                .beanClass(MongoLockExtension.class)
                .types(LockedOperations.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(Dependent.class)
                .produceWith(lookup -> resolvedOperations);
        managerRegistered = true;
    }

    /**
     * Checks the manager's settings as its builder will, so that a setting the core rejects stops the
     * deployment. Nothing is created yet: another extension may still fail the deployment, and a
     * manager started now would leave its MongoClient open.
     */
    void validateManager(@Observes AfterDeploymentValidation validation) {
        if (!managerRegistered) {
            return;
        }
        try {
            settings.validate();
        } catch (LockException | IllegalArgumentException invalid) {
            validation.addDeploymentProblem(new LockConfigurationException(
                    CdiMessages.managerNotCreated(invalid.getMessage()), invalid));
        }
    }

    /**
     * Starts the manager as soon as the application is up (the event is fired only after a successful
     * deployment), so connection settings take effect, and readiness reports, before the first call.
     */
    void startManager(@Observes @Initialized(ApplicationScoped.class) Object applicationStarted, BeanManager beans) {
        if (managerRegistered) {
            ApplicationLifecycle.start(beans, MongoLockExtension::registered, !configuration.leadership().elections().isEmpty());
        }
    }

    /**
     * Leaves the elections as soon as the application begins to stop, while the beans observing
     * {@link LeadershipRevoked} still exist: each leadership held is revoked ({@code LEFT}), then its lock
     * released, so another instance can be elected at its next poll.
     */
    void leaveElections(@Observes @BeforeDestroyed(ApplicationScoped.class) Object applicationStopping, BeanManager beans) {
        if (managerRegistered) {
            ApplicationLifecycle.leaveElections(beans, MongoLockExtension::registered);
        }
    }

    private static boolean registered(Bean<?> bean) {
        return bean.getBeanClass() == MongoLockExtension.class;
    }

    /** The operation resolved at deployment, if any; for diagnostics and tests. */
    Optional<LockedOperation> resolved(Class<?> beanClass, Method method) {
        return operations == null ? Optional.empty() : operations.find(beanClass, method);
    }
}
