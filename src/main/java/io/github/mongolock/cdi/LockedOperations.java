package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.LockOptions;
import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Builds the {@link LockedOperation} of every {@code @Locked} method while the application deploys,
 * and hands them to the interceptor afterwards.
 *
 * <p>Wait and lease times and the minimum hold are looked up in this order, first found wins (as in
 * MicroProfile Fault Tolerance): {@code <bean class>/<method>/Locked/<member>},
 * {@code <bean class>/Locked/<member>}, {@code Locked/<member>}, the annotation's member, and finally
 * the manager's default ({@code mongolock.wait-time} / {@code mongolock.lease-time}; no minimum hold),
 * where {@code <member>} is {@code wait-time}, {@code lease-time} or {@code hold-at-least}. Except: a {@code SKIP} method with no wait time set
 * anywhere but {@code mongolock.wait-time} does not wait ({@code PT0S}). Thread-safe: built on the deployment thread, read by
 * any thread afterwards.
 */
final class LockedOperations {

    static final String WAIT_TIME = "wait-time";
    static final String LEASE_TIME = "lease-time";
    static final String HOLD_AT_LEAST = "hold-at-least";
    static final String PERMITS = "permits";
    static final String ACCESS = "access";
    /** {@link LockOptions#metricsGroup}'s limit. */
    private static final int MAX_GROUP = 255;

    private record Key(Class<?> beanClass, Method method) {
    }

    private final ConfigReader config;
    private final Map<Key, LockedOperation> operations = new ConcurrentHashMap<>();
    private final Map<Key, LockedOperation> byTargetClass = new ConcurrentHashMap<>();

    LockedOperations(ConfigReader config) {
        this.config = config;
    }

    /** Resolves and checks {@code method} of {@code beanClass}; problems go to {@code problems}. */
    void register(Class<?> beanClass, Method method, Locked locked, List<String> problems) {
        create(beanClass, method, locked, problems).ifPresent(operation -> operations.put(new Key(beanClass, method), operation));
    }

    /** Resolves and checks every {@code @Locked} method of {@code beanClass} ({@link LockedMethods#of}). */
    void registerAll(Class<?> beanClass, List<String> problems) {
        LockedMethods.of(beanClass).forEach((method, locked) -> register(beanClass, method, locked, problems));
    }

    /**
     * The operation for a call. Beans seen at deployment were resolved then; any other (e.g. a bean
     * added in an unusual way) is resolved once, on its first call, with the same rules.
     *
     * @throws LockConfigurationException when such a late method's {@code @Locked} is invalid
     */
    LockedOperation get(Class<?> beanClass, Method method) {
        LockedOperation known = operations.get(new Key(beanClass, method));
        if (known != null) {
            return known;
        }
        return operations.computeIfAbsent(new Key(beanClass, method), key -> {
            Locked locked = Optional.ofNullable(method.getAnnotation(Locked.class))
                    .orElseGet(() -> beanClass.getAnnotation(Locked.class));
            if (locked == null) {
                locked = method.getDeclaringClass().getAnnotation(Locked.class);
            }
            if (locked == null) {
                throw new LockConfigurationException("No @Locked found on " + label(method) + " of " + beanClass.getName()
                        + " although the mongolock interceptor was called for it, and the bean was not seen when the"
                        + " application deployed: put @Locked on the method or the bean class.");
            }
            List<String> problems = new ArrayList<>();
            Optional<LockedOperation> operation = create(beanClass, method, locked, problems);
            if (operation.isEmpty()) {
                throw new LockConfigurationException(String.join("\n", problems));
            }
            return operation.get();
        });
    }

    /**
     * The operation for a call whose bean is unknown (the container gave no {@code @Intercepted} bean):
     * the one registered for the most specific bean class that {@code target} is an instance of
     * (the target may be a container-generated subclass), else resolved for the declaring class.
     */
    LockedOperation get(Object target, Method method) {
        return byTargetClass.computeIfAbsent(new Key(target.getClass(), method), key -> {
            Class<?> best = null;
            LockedOperation found = null;
            for (Map.Entry<Key, LockedOperation> entry : operations.entrySet()) {
                Class<?> beanClass = entry.getKey().beanClass();
                if (entry.getKey().method().equals(method) && beanClass.isInstance(target)
                        && (best == null || best.isAssignableFrom(beanClass))) {
                    best = beanClass;
                    found = entry.getValue();
                }
            }
            return found != null ? found : get(method.getDeclaringClass(), method);
        });
    }

    /** The operations resolved so far, by bean class and method; for diagnostics and tests. */
    Optional<LockedOperation> find(Class<?> beanClass, Method method) {
        return Optional.ofNullable(operations.get(new Key(beanClass, method)));
    }

    int size() {
        return operations.size();
    }

    private Optional<LockedOperation> create(Class<?> beanClass, Method method, Locked locked, List<String> problems) {
        int before = problems.size();
        String label = label(method);
        Optional<List<NameTemplate>> names = templates(method, label, List.of(locked.value()), problems);
        Optional<Duration> wait = lookup(beanClass, method, WAIT_TIME, problems)
                .flatMap(key -> config.waitTime(key, problems))
                .or(() -> locked.waitTime().isBlank() ? Optional.empty()
                        : ConfigReader.waitTime("@Locked(waitTime) on " + label, locked.waitTime(), problems));
        Optional<Duration> lease = lookup(beanClass, method, LEASE_TIME, problems)
                .flatMap(key -> config.lease(key, problems))
                .or(() -> locked.leaseTime().isBlank() ? Optional.empty()
                        : ConfigReader.lease("@Locked(leaseTime) on " + label, locked.leaseTime(), problems));
        Optional<Duration> holdAtLeast = lookup(beanClass, method, HOLD_AT_LEAST, problems)
                .flatMap(key -> config.holdAtLeast(key, problems))
                .or(() -> locked.holdAtLeast().isBlank() ? Optional.empty()
                        : ConfigReader.holdAtLeast("@Locked(holdAtLeast) on " + label, locked.holdAtLeast(), problems));
        int permits = lookup(beanClass, method, PERMITS, problems).flatMap(key -> config.integer(key, problems)
                        .map(value -> checkedPermits(key, value, problems))).orElseGet(
                () -> checkedPermits("@Locked(permits) on " + label, locked.permits(), problems));
        Locked.Access access = lookup(beanClass, method, ACCESS, problems)
                .flatMap(key -> config.text(key, problems).map(value -> checkedAccess(key, value, problems)))
                .orElse(locked.access());
        ReadWriteAccess.check(label, access, permits, holdAtLeast, List.of(locked.value()),
                ReturnKind.of(method.getReturnType()).asynchronous(), method.getGenericReturnType().getTypeName(), problems);
        if (permits > 0 && holdAtLeast.isPresent() && !holdAtLeast.get().isZero()) {
            problems.add(CdiMessages.permitsWithMinimumHold(label));
        }
        if (permits > 0 && locked.value().length > 1) {
            problems.add(CdiMessages.permitsWithSeveralNames(label, List.of(locked.value())));
        }
        ReturnKind returns = ReturnKind.of(method.getReturnType());
        String returnType = method.getGenericReturnType().getTypeName();
        if (locked.onBusy() == Locked.OnBusy.SKIP && !returns.skippable()) {
            problems.add(CdiMessages.skipNotPossible(label, returnType));
        }
        if (locked.onLeaseLost() == OnLeaseLost.CANCEL && !returns.asynchronous()) {
            problems.add(CdiMessages.leaseLossPolicyNotPossible(label, returnType, "CANCEL",
                    "only a returned CompletionStage can be cancelled. Use INTERRUPT to interrupt the thread running"
                            + " this synchronous method, or REPORT."));
        }
        if (locked.onLeaseLost() == OnLeaseLost.INTERRUPT && returns.asynchronous()) {
            problems.add(CdiMessages.leaseLossPolicyNotPossible(label, returnType, "INTERRUPT",
                    "the method returns before the stage's work is done, so there is no thread to interrupt for it."
                            + " Use CANCEL to cancel the returned stage, or REPORT."));
        }
        if (problems.size() > before) {
            return Optional.empty();
        }
        LockOptions options = LockOptions.defaults();
        if (wait.isPresent()) {
            options = options.waitTime(wait.get());
        } else if (locked.onBusy() == Locked.OnBusy.SKIP) {
            // "Skip if busy" means now: a scheduled job that waited mongolock.wait-time for the
            // instance that is already running it would simply run again afterwards.
            options = options.waitTime(Duration.ZERO);
        }
        if (lease.isPresent()) {
            options = options.leaseTime(lease.get());
        }
        if (holdAtLeast.isPresent()) {
            options = options.holdAtLeast(holdAtLeast.get());
        }
        // Metrics report the template ("account-{0}"), never each account's lock: few time series. A multi-lock's
        // parts share one group, its templates.
        String group = names.orElseThrow().stream().map(NameTemplate::toString).collect(Collectors.joining(", "));
        options = options.metricsGroup(group.length() > MAX_GROUP ? group.substring(0, MAX_GROUP) : group);
        return Optional.of(new LockedOperation(label, names.orElseThrow(), options, locked.onBusy(), locked.onLeaseLost(),
                returns, ScheduledAsynchronous.isScheduled(method), permits, access));
    }

    private static Locked.Access checkedAccess(String key, String value, List<String> problems) {
        try {
            return Locked.Access.valueOf(value.trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException unknown) {
            problems.add(CdiMessages.badAccess(key, value));
            return Locked.Access.EXCLUSIVE;
        }
    }

    private static int checkedPermits(String source, int value, List<String> problems) {
        if (value < 0) {
            problems.add(CdiMessages.badPermits(source, value));
            return 0;
        }
        return value;
    }

    /**
     * The name templates of {@code @Locked(value)}: one, or several for a multi-lock, each parsed as a single
     * one is; none, an empty one among several or one given twice is a problem.
     */
    private static Optional<List<NameTemplate>> templates(Method method, String label, List<String> values,
                                                          List<String> problems) {
        if (values.isEmpty()) {
            problems.add(CdiMessages.noNameTemplate(label));
            return Optional.empty();
        }
        int before = problems.size();
        if (values.size() > 1 && values.contains("")) {
            problems.add(CdiMessages.emptyTemplateInMultiLock(label, values));
        }
        values.stream().filter(value -> values.indexOf(value) != values.lastIndexOf(value)).distinct()
                .forEach(repeated -> problems.add(CdiMessages.repeatedTemplate(label, values, repeated)));
        List<NameTemplate> parsed = new ArrayList<>();
        for (String value : values) {
            if (!value.isEmpty() || values.size() == 1) {
                NameTemplate.parse(value, method, label, problems).ifPresent(parsed::add);
            }
        }
        return problems.size() > before ? Optional.empty() : Optional.of(parsed);
    }

    /** The most specific override key that is set, if any. */
    private Optional<String> lookup(Class<?> beanClass, Method method, String member, List<String> problems) {
        String[] keys = {
            beanClass.getName() + "/" + method.getName() + "/Locked/" + member,
            beanClass.getName() + "/Locked/" + member,
            "Locked/" + member
        };
        for (String key : keys) {
            if (config.text(key, problems).isPresent()) {
                return Optional.of(key);
            }
        }
        return Optional.empty();
    }

    /** {@code com.acme.Billing.charge(String, long)} */
    static String label(Method method) {
        return method.getDeclaringClass().getName() + "." + method.getName()
                + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName).collect(Collectors.joining(", ", "(", ")"));
    }
}
