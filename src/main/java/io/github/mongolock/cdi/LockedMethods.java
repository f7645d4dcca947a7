package io.github.mongolock.cdi;

import io.github.mongolock.Locked;
import jakarta.enterprise.inject.Stereotype;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * Which methods of a bean class a {@code @Locked} governs, and which {@code @Locked} that is: the rules
 * both extensions apply, the portable one to the container's {@code AnnotatedType}, the build-compatible
 * one to the bean class itself ({@link #of}). Stateless.
 */
final class LockedMethods {

    private LockedMethods() {
    }

    /**
     * The {@code @Locked} that governs {@code method}: its own, else the class-level one; empty when there is
     * none, or when a class-level binding does not reach the method (static, private, an object method,
     * bridges and synthetic methods, {@code Object}'s own).
     */
    static Optional<Locked> effective(Method method, Locked own, Locked onClass) {
        Locked locked = own != null ? own : onClass;
        int modifiers = method.getModifiers();
        // A private method is intercepted only as an EJB timer callback (@AroundTimeout), so only its own
        // @Locked counts; a class-level @Locked does not reach private helpers.
        if (locked == null || Modifier.isStatic(modifiers) || (Modifier.isPrivate(modifiers) && own == null)
                || (own == null && isObjectMethod(method))
                || method.getDeclaringClass() == Object.class || method.isBridge() || method.isSynthetic()) {
            return Optional.empty();
        }
        return Optional.of(locked);
    }

    /**
     * The {@code @Locked} a bean class gets from its stereotypes (which may declare stereotypes themselves),
     * if any, as told by the container ({@code isStereotype}, {@code definition}).
     */
    static Locked fromStereotypes(Collection<Annotation> annotations, Predicate<Class<? extends Annotation>> isStereotype,
                                  Function<Class<? extends Annotation>, Collection<Annotation>> definition) {
        Set<Class<?>> seen = new HashSet<>();
        Deque<Collection<Annotation>> pending = new ArrayDeque<>();
        pending.add(annotations);
        while (!pending.isEmpty()) {
            for (Annotation annotation : pending.removeFirst()) {
                Class<? extends Annotation> kind = annotation.annotationType();
                if (isStereotype.test(kind) && seen.add(kind)) {
                    Collection<Annotation> members = definition.apply(kind);
                    for (Annotation member : members) {
                        if (member instanceof Locked locked) {
                            return locked;
                        }
                    }
                    pending.add(members);
                }
            }
        }
        return null;
    }

    /**
     * The {@code @Locked} methods of {@code beanClass} read from the class itself, as a container lists a bean
     * class's methods: those it declares and inherits, and the default methods of its interfaces, each
     * overridden method only as the most specific class declares it; a class-level {@code @Locked} comes from
     * the class (inherited, {@code @Locked} is {@code @Inherited}) or its stereotypes.
     */
    static Map<Method, Locked> of(Class<?> beanClass) {
        Locked onClass = beanClass.isAnnotationPresent(Locked.class) ? beanClass.getAnnotation(Locked.class)
                : fromStereotypes(Arrays.asList(beanClass.getAnnotations()), kind -> kind.isAnnotationPresent(Stereotype.class),
                        kind -> Arrays.asList(kind.getAnnotations()));
        Map<Method, Locked> locked = new LinkedHashMap<>();
        for (Method method : methods(beanClass)) {
            effective(method, method.getAnnotation(Locked.class), onClass).ifPresent(found -> locked.put(method, found));
        }
        return locked;
    }

    private record Signature(String name, List<Class<?>> parameters) {
        Signature(Method method) {
            this(method.getName(), List.of(method.getParameterTypes()));
        }
    }

    private static List<Method> methods(Class<?> beanClass) {
        List<Method> methods = new ArrayList<>();
        Set<Signature> seen = new HashSet<>();
        List<Class<?>> interfaces = new ArrayList<>();
        for (Class<?> type = beanClass; type != null && type != Object.class; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                // A private method is its class's own: a subclass's method of the same signature does not hide it.
                if (Modifier.isPrivate(method.getModifiers()) || seen.add(new Signature(method))) {
                    methods.add(method);
                }
            }
            interfaces.addAll(Arrays.asList(type.getInterfaces()));
        }
        Set<Class<?>> visited = new HashSet<>();
        while (!interfaces.isEmpty()) {
            Class<?> type = interfaces.remove(0);
            if (visited.add(type)) {
                for (Method method : type.getDeclaredMethods()) {
                    if (method.isDefault() && seen.add(new Signature(method))) {
                        methods.add(method);
                    }
                }
                interfaces.addAll(Arrays.asList(type.getInterfaces()));
            }
        }
        return methods;
    }

    /**
     * Whether {@code method} is {@code toString()}, {@code hashCode()} or {@code equals(Object)}: a class-level
     * {@code @Locked} never locks them (a log line or a map lookup must not become a lock round trip);
     * only a {@code @Locked} on the method itself does.
     */
    static boolean isObjectMethod(Method method) {
        return switch (method.getName()) {
            case "toString", "hashCode" -> method.getParameterCount() == 0;
            case "equals" -> method.getParameterCount() == 1 && method.getParameterTypes()[0] == Object.class;
            default -> false;
        };
    }
}
