package io.github.mongolock.cdi;

import com.mongodb.client.MongoClient;
import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockException;
import io.github.mongolock.memory.InMemoryLocks;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.build.compatible.spi.Parameters;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticBeanCreator;
import jakarta.enterprise.inject.build.compatible.spi.SyntheticBeanDisposer;
import java.lang.System.Logger.Level;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * The run-time half of {@link MongoLockBuildExtension}: the creators and disposers of its synthetic beans,
 * which the container instantiates by their public constructors.
 */
final class BuildExtensionBeans {

    private static final System.Logger LOG = System.getLogger(BuildExtensionBeans.class.getName());

    private BuildExtensionBeans() {
    }

    /**
     * Reads MicroProfile Config as the application starts, and resolves the {@code @Locked} methods of the bean
     * classes the build found against it. Any problem, a missing connection included, fails the startup with
     * every message at once.
     */
    public static final class ConfigurationCreator implements SyntheticBeanCreator<MongoLockConfiguration> {
        @Override
        public MongoLockConfiguration create(Instance<Object> lookup, Parameters params) {
            List<String> problems = new ArrayList<>();
            MongoLockConfiguration configuration = MongoLockConfiguration.read(new ConfigReader(ConfigProvider.getConfig()), problems);
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            for (String name : params.get(MongoLockBuildExtension.LOCKED_BEANS, String[].class, new String[0])) {
                try {
                    configuration.operations().registerAll(Class.forName(name, false, loader), problems);
                } catch (ClassNotFoundException | LinkageError unloadable) {
                    problems.add(CdiMessages.beanClassUnreadable(name, unloadable.toString()));
                }
            }
            int built = params.get(MongoLockBuildExtension.BUILT_PRIORITY, Integer.class);
            if (configuration.settings().interceptorPriority() != built) {
                LOG.log(Level.WARNING, "mongolock: " + LockManagerSettings.INTERCEPTOR_PRIORITY + " is "
                        + configuration.settings().interceptorPriority() + " now, but it is read when the application is built:"
                        + " the @Locked interceptor runs at priority " + built + ". Set it at build time and rebuild to change it.");
            }
            warnIfInMemoryChanged(configuration.settings().inMemory(), params.get(MongoLockBuildExtension.BUILT_IN_MEMORY, Boolean.class));
            problems.addAll(configuration.settings().connectionProblems(lookup.select(MongoClient.class).isResolvable()));
            ConfigurationProblems.throwIfAny(problems);
            try {
                configuration.settings().validate();
            } catch (LockException | IllegalArgumentException invalid) {
                throw new LockConfigurationException(CdiMessages.managerNotCreated(invalid.getMessage()), invalid);
            }
            return configuration;
        }
    }

    /** The {@link InMemoryLocks} bean exists only when the build saw {@code memory:}: say so when the start sees otherwise. */
    private static void warnIfInMemoryChanged(boolean inMemory, boolean built) {
        if (inMemory && !built) {
            LOG.log(Level.WARNING, "mongolock: " + LockManagerSettings.URI + " is " + InMemoryLocks.URI + " now, but the build did not"
                    + " see it: the locks live in an in-memory store of the LockManager's own, and no InMemoryLocks bean gives a test its"
                    + " controls. Set it where the build sees it (a QuarkusTestProfile's config overrides, or %test." + LockManagerSettings.URI
                    + " in application.properties).");
        } else if (built && !inMemory) {
            LOG.log(Level.WARNING, "mongolock: the application was built with " + LockManagerSettings.URI + "=" + InMemoryLocks.URI
                    + " but starts with another " + LockManagerSettings.URI + ": the locks live in MongoDB, the InMemoryLocks bean's"
                    + " store is not used. Build with the configuration the application runs with.");
        }
    }

    /** With {@code mongolock.uri=memory:} at build time: the store of the application's locks, and its controls. */
    public static final class InMemoryLocksCreator implements SyntheticBeanCreator<InMemoryLocks> {
        @Override
        public InMemoryLocks create(Instance<Object> lookup, Parameters params) {
            return new InMemoryLocks();
        }
    }

    public static final class InMemoryLocksDisposer implements SyntheticBeanDisposer<InMemoryLocks> {
        @Override
        public void dispose(InMemoryLocks locks, Instance<Object> lookup, Parameters params) {
            locks.close();
        }
    }

    /** The operations the interceptor runs, as resolved with the run-time configuration. */
    public static final class OperationsCreator implements SyntheticBeanCreator<LockedOperations> {
        @Override
        public LockedOperations create(Instance<Object> lookup, Parameters params) {
            return lookup.select(MongoLockConfiguration.class).get().operations();
        }
    }

    public static final class ManagerCreator implements SyntheticBeanCreator<ApplicationLockManager> {
        @Override
        public ApplicationLockManager create(Instance<Object> lookup, Parameters params) {
            return ApplicationBeans.createManager(lookup.select(MongoLockConfiguration.class).get().settings(), lookup, null);
        }
    }

    public static final class ManagerDisposer implements SyntheticBeanDisposer<ApplicationLockManager> {
        @Override
        public void dispose(ApplicationLockManager manager, Instance<Object> lookup, Parameters params) {
            manager.close();
        }
    }

    public static final class LeadershipsCreator implements SyntheticBeanCreator<Leaderships> {
        @Override
        public Leaderships create(Instance<Object> lookup, Parameters params) {
            return ApplicationBeans.createLeaderships(lookup.select(MongoLockConfiguration.class).get().leadership(), lookup);
        }
    }

    public static final class LeadershipsDisposer implements SyntheticBeanDisposer<Leaderships> {
        @Override
        public void dispose(Leaderships leaderships, Instance<Object> lookup, Parameters params) {
            ((ApplicationLeaderships) leaderships).leave();
        }
    }
}
