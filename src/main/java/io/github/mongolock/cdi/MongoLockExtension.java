package io.github.mongolock.cdi;

import com.mongodb.client.MongoClient;
import io.github.mongolock.LeadershipGranted;
import io.github.mongolock.LeadershipRevoked;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockEvent;
import io.github.mongolock.LockException;
import io.github.mongolock.LockManager;
import io.github.mongolock.LockMetrics;
import io.github.mongolock.Locked;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.context.BeforeDestroyed;
import jakarta.enterprise.context.Initialized;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Any;
import jakarta.enterprise.inject.Default;
import jakarta.enterprise.inject.Instance;
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
import jakarta.enterprise.util.AnnotationLiteral;
import java.lang.System.Logger.Level;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
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
 * {@link LockManager} bean, and the {@link Leaderships} bean that joins the leader elections configured in
 * {@code mongolock.leadership.*} when the application starts and leaves them when it stops. All problems found (bad durations, unknown template references,
 * {@code SKIP} on a method that must return a value, missing or invalid connection settings) are
 * reported together through {@link AfterBeanDiscovery#addDefinitionError}, so a misconfigured
 * application does not start. After validation the manager is created eagerly, so whatever the core
 * still rejects also fails the deployment rather than the first call.
 *
 * <p>One instance per container; its state is only written on the deployment thread.
 */
public class MongoLockExtension implements Extension {

    private static final System.Logger LOG = System.getLogger(MongoLockExtension.class.getName());

    private final Config explicitConfig;
    private final List<String> problems = new ArrayList<>();
    private LockManagerSettings settings;
    private LeadershipSettings leadership;
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
            ConfigReader reader = new ConfigReader(explicitConfig != null ? explicitConfig : ConfigProvider.getConfig());
            settings = LockManagerSettings.read(reader, problems);
            leadership = LeadershipSettings.read(reader, problems);
            operations = new LockedOperations(reader);
        }
    }

    /**
     * Registers the interceptor with the configured priority. Whether or not the library's own bean
     * archive is scanned (a server scans it, a hand-booted container may not), exactly this one
     * registration is used: a discovered copy is vetoed in {@link #vetoDiscoveredInterceptor}.
     */
    void addInterceptor(@Observes BeforeBeanDiscovery discovery) {
        prepare();
        AnnotatedTypeConfigurator<LockedInterceptor> type =
                discovery.addAnnotatedType(LockedInterceptor.class, LockedInterceptor.class.getName() + "#mongolock")
                        .add(RegisteredByExtension.Literal.INSTANCE);
        if (settings.interceptorPriority() != LockedInterceptor.DEFAULT_PRIORITY) {
            setPriority(type);
        }
    }

    void vetoDiscoveredInterceptor(@Observes ProcessAnnotatedType<LockedInterceptor> type) {
        if (!type.getAnnotatedType().isAnnotationPresent(RegisteredByExtension.class)) {
            type.veto();
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
                : fromStereotypes(type.getAnnotations(), beans, new HashSet<>());
        for (AnnotatedMethod<?> annotated : type.getMethods()) {
            Method method = annotated.getJavaMember();
            boolean onMethod = annotated.isAnnotationPresent(Locked.class);
            Locked locked = onMethod ? annotated.getAnnotation(Locked.class) : onClass;
            int modifiers = method.getModifiers();
            // A private method is intercepted only as an EJB timer callback (@AroundTimeout), so only its own
            // @Locked counts; a class-level @Locked does not reach private helpers.
            if (locked == null || Modifier.isStatic(modifiers) || (Modifier.isPrivate(modifiers) && !onMethod)
                    || (!onMethod && LockedOperations.isObjectMethod(method))
                    || method.getDeclaringClass() == Object.class || method.isBridge() || method.isSynthetic()) {
                continue;
            }
            operations.register(beanClass, method, locked, problems);
        }
    }

    /** The {@code @Locked} a bean class gets from its stereotypes (which may declare stereotypes themselves), if any. */
    private static Locked fromStereotypes(Set<Annotation> annotations, BeanManager beans, Set<Class<?>> seen) {
        for (Annotation annotation : annotations) {
            Class<? extends Annotation> kind = annotation.annotationType();
            if (beans.isStereotype(kind) && seen.add(kind)) {
                Set<Annotation> definition = beans.getStereotypeDefinition(kind);
                for (Annotation member : definition) {
                    if (member instanceof Locked locked) {
                        return locked;
                    }
                }
                Locked nested = fromStereotypes(definition, beans, seen);
                if (nested != null) {
                    return nested;
                }
            }
        }
        return null;
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
        if (!problems.isEmpty()) {
            // A class-level override is checked for each method of the class, but reported once.
            Set<String> distinct = new LinkedHashSet<>(problems);
            LOG.log(Level.ERROR, "mongolock found " + distinct.size() + " configuration problem(s):\n" + String.join("\n", distinct));
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
                .produceWith(lookup -> createManager(resolved, lookup, applicationClient))
                .disposeWith((manager, lookup) -> ((ApplicationLockManager) manager).close());
        LeadershipSettings elections = leadership;
        discovery.addBean()
                .beanClass(MongoLockExtension.class)
                .types(Leaderships.class, Object.class)
                .qualifiers(Default.Literal.INSTANCE, Any.Literal.INSTANCE)
                .scope(ApplicationScoped.class)
                .produceWith(lookup -> createLeaderships(elections, lookup))
                .disposeWith((leaderships, lookup) -> ((ApplicationLeaderships) leaderships).leave());
        managerRegistered = true;
    }

    /** Joins the configured elections over the application's LockManager bean (created first, if need be). */
    private static ApplicationLeaderships createLeaderships(LeadershipSettings settings, Instance<Object> lookup) {
        LockManager locks = lookup.select(LockManager.class).get();
        BeanManager beans = lookup.select(BeanManager.class).get();
        return new ApplicationLeaderships(locks, settings, beans.getEvent().select(LeadershipGranted.class),
                beans.getEvent().select(LeadershipRevoked.class));
    }

    /**
     * The application's {@code @Default MongoClient} bean. Payara (GlassFish) resolves a synthetic bean's
     * lookup in the library jar's bean archive, which does not see beans in {@code WEB-INF/classes}
     * (seen with Payara Micro 6.2025.10; {@code CDI.current()} fails there too): the bean noted while
     * beans were discovered is then asked for its reference directly.
     */
    private static MongoClient applicationClient(Instance<Object> lookup, BeanManager beans, Bean<?> noted) {
        Instance<MongoClient> fromLibrary = lookup.select(MongoClient.class);
        if (fromLibrary.isResolvable() || noted == null) {
            return fromLibrary.get();
        }
        return (MongoClient) beans.getReference(noted, MongoClient.class, beans.createCreationalContext(noted));
    }

    private static ApplicationLockManager createManager(LockManagerSettings settings, Instance<Object> lookup,
                                                        Bean<?> noted) {
        BeanManager beans = lookup.select(BeanManager.class).get();
        MongoClient client = settings.usesClientBean() ? applicationClient(lookup, beans, noted) : null;
        LockEventBridge events = new LockEventBridge(beans.getEvent().select(LockEvent.class));
        LockMetrics metrics = settings.metrics() ? TelemetryLookup.metrics(lookup) : LockMetrics.NONE;
        ApplicationLockManager manager = new ApplicationLockManager(settings.newManager(client, events, metrics), events, metrics);
        LOG.log(Level.INFO, "mongolock LockManager started: instance " + manager.instanceId() + ", "
                + (settings.usesClientBean() ? "the application's MongoClient bean" : "mongolock.uri")
                + ", collection " + settings.collection() + ", lease " + settings.leaseTime() + ", wait " + settings.waitTime()
                + ", metrics " + (metrics == LockMetrics.NONE ? "off" : metrics));
        return manager;
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
        if (!managerRegistered) {
            return;
        }
        for (Bean<?> bean : beans.getBeans(LockManager.class)) {
            if (bean.getBeanClass() == MongoLockExtension.class) {
                startNow(beans, bean);
            }
        }
        if (!leadership.elections().isEmpty()) {
            ourLeaderships(beans).ifPresent(bean -> startNow(beans, bean)); // joins the elections
        }
    }

    /**
     * Leaves the elections as soon as the application begins to stop, while the beans observing
     * {@link LeadershipRevoked} still exist: each leadership held is revoked ({@code LEFT}), then its lock
     * released, so another instance can be elected at its next poll.
     */
    void leaveElections(@Observes @BeforeDestroyed(ApplicationScoped.class) Object applicationStopping, BeanManager beans) {
        if (!managerRegistered) {
            return;
        }
        ourLeaderships(beans).ifPresent(bean -> {
            Object running = beans.getContext(ApplicationScoped.class).get(bean); // null when never created
            if (running instanceof ApplicationLeaderships leaderships) {
                leaderships.leave();
            }
        });
    }

    private static Optional<Bean<?>> ourLeaderships(BeanManager beans) {
        return beans.getBeans(Leaderships.class).stream().filter(bean -> bean.getBeanClass() == MongoLockExtension.class)
                .findFirst();
    }

    private static <T> void startNow(BeanManager beans, Bean<T> bean) {
        beans.getContext(ApplicationScoped.class).get(bean, beans.createCreationalContext(bean));
    }

    /** The resolved operation of a {@code @Locked} method, used by {@link LockedInterceptor} on every call. */
    LockedOperation operation(Class<?> beanClass, Method method) {
        return operations.get(beanClass, method);
    }

    /** The operation of a {@code @Locked} method when the container does not tell the intercepted bean. */
    LockedOperation operation(Object target, Method method) {
        return operations.get(target, method);
    }

    /** The operation resolved at deployment, if any; for diagnostics and tests. */
    Optional<LockedOperation> resolved(Class<?> beanClass, Method method) {
        return operations == null ? Optional.empty() : operations.find(beanClass, method);
    }

    @SuppressWarnings("all")
    private static final class PriorityLiteral extends AnnotationLiteral<Priority> implements Priority {
        private static final long serialVersionUID = 1L;
        private final int value;

        PriorityLiteral(int value) {
            this.value = value;
        }

        @Override
        public int value() {
            return value;
        }
    }
}
