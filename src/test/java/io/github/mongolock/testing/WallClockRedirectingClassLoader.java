package io.github.mongolock.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;
import org.objectweb.asm.ClassReader;
import org.objectweb.asm.ClassVisitor;
import org.objectweb.asm.ClassWriter;
import org.objectweb.asm.Handle;
import org.objectweb.asm.MethodVisitor;
import org.objectweb.asm.Opcodes;
import org.objectweb.asm.Type;

/**
 * Defines the classes under one package prefix (mongo-java-server's {@code de.bwaldvogel.}) itself, from
 * the class path's bytes with every read of the wall clock pointed at {@link SteppedWallClock}, and takes
 * every other class from its parent, so that the JDK, Netty and the test's own classes keep the real clock.
 * All the prefix's classes are rewritten when the loader is made, so a read it cannot redirect stops the
 * stand-in's start rather than a request later; a class under the prefix that the scan did not find is
 * never taken from the parent (it would run on the real clock): loading it fails.
 *
 * <p>Redirected (the call is replaced, the stack effect kept):
 * <ul>
 *   <li>{@code System.currentTimeMillis()} to {@link SteppedWallClock#currentTimeMillis()};</li>
 *   <li>{@code Clock.systemUTC()}, {@code Clock.systemDefaultZone()}, {@code Clock.system(zone)} to the
 *       {@link SteppedWallClock} methods of the same name;</li>
 *   <li>{@code now()} and {@code now(zone)} of every java.time type ({@code Instant.now()} among them) to
 *       that type's {@code now(Clock)} with a stepped clock;</li>
 *   <li>{@code new Date()} to {@code new Date(SteppedWallClock.currentTimeMillis())}.</li>
 * </ul>
 * Refused, naming the class and method: the other reads of the wall clock ({@code Clock.tick*(zone)},
 * {@code InstantSource.system()}, {@code Calendar.getInstance(..)}, {@code new GregorianCalendar()} without
 * a date, {@code Chronology.dateNow(..)}) and method references to any wall-clock read. None of them occurs in
 * mongo-java-server 1.47.0; a later version that brought one would otherwise leave part of its clock unstepped.
 *
 * <p>Where mongo-java-server 1.47.0 reads the wall clock (all redirected, {@link #redirected()} lists them):
 * {@code FieldUpdates.handleCurrentDate} ({@code $currentDate}, {@code Instant.now()}),
 * {@code aggregation.Expression.evaluate} ({@code $$NOW} in {@code $expr} filters and in aggregations,
 * {@code Instant.now()}), {@code AbstractMongoBackend.defaultClock} ({@code Clock.systemDefaultZone()}: the
 * backend's clock, read for {@code serverStatus}, the handshake's {@code localTime} and the oplog's
 * timestamps), {@code AbstractMongoBackend.handleHostInfo} and {@code IndexStatsStage} ({@code Instant.now()}),
 * {@code OutStage} ({@code System.currentTimeMillis()}, in a temporary collection's name).
 *
 * <p>Thread-safe: the rewritten bytes are fixed at construction; definition is locked per class name.
 */
final class WallClockRedirectingClassLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private static final String STEPPED = Type.getInternalName(SteppedWallClock.class);
    /** The constructors of {@code GregorianCalendar} that start at the current time (the others take a date). */
    private static final Set<String> CURRENT_TIME_CALENDARS = Set.of("()V", "(Ljava/util/Locale;)V",
            "(Ljava/util/TimeZone;)V", "(Ljava/util/TimeZone;Ljava/util/Locale;)V");

    private final String packagePrefix;
    private final Map<String, byte[]> rewritten;
    private final List<String> redirected;

    private WallClockRedirectingClassLoader(ClassLoader parent, String packagePrefix, Map<String, byte[]> rewritten,
                                            List<String> redirected) {
        super("wall-clock-redirecting", parent);
        this.packagePrefix = packagePrefix;
        this.rewritten = rewritten;
        this.redirected = List.copyOf(redirected);
    }

    /**
     * Reads and rewrites every class under {@code packagePrefix} (e.g. {@code "de.bwaldvogel."}) found in the
     * {@code classPath} entries (jars or directories; the first entry holding a class wins, as on a class path).
     *
     * @throws IllegalStateException where a class reads the wall clock in a way that cannot be redirected,
     *                               or where no class under the prefix was found
     */
    static WallClockRedirectingClassLoader of(ClassLoader parent, String packagePrefix, List<Path> classPath)
            throws IOException {
        String directory = packagePrefix.replace('.', '/');
        Map<String, byte[]> rewritten = new HashMap<>();
        List<String> redirected = new ArrayList<>();
        for (Path entry : classPath) {
            if (Files.isDirectory(entry)) {
                Path root = entry.resolve(directory);
                if (!Files.isDirectory(root)) {
                    continue;
                }
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                        String name = entry.relativize(file).toString().replace(file.getFileSystem().getSeparator(), "/");
                        add(rewritten, redirected, name, Files.readAllBytes(file));
                    }
                }
            } else if (Files.isRegularFile(entry)) {
                try (JarFile jar = new JarFile(entry.toFile())) {
                    for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                        JarEntry classFile = entries.nextElement();
                        if (classFile.getName().startsWith(directory) && classFile.getName().endsWith(".class")) {
                            try (InputStream in = jar.getInputStream(classFile)) {
                                add(rewritten, redirected, classFile.getName(), in.readAllBytes());
                            }
                        }
                    }
                }
            }
        }
        if (rewritten.isEmpty()) {
            throw new IllegalStateException("no class under " + packagePrefix + " on the class path " + classPath);
        }
        return new WallClockRedirectingClassLoader(parent, packagePrefix, rewritten, redirected);
    }

    private static void add(Map<String, byte[]> rewritten, List<String> redirected, String path, byte[] bytes) {
        String name = path.substring(0, path.length() - ".class".length()).replace('/', '.');
        if (!rewritten.containsKey(name)) {
            rewritten.put(name, rewrite(bytes, redirected));
        }
    }

    /** Each redirected read, as {@code "de.bwaldvogel.mongo.backend.FieldUpdates.handleCurrentDate: java/time/Instant.now"}. */
    List<String> redirected() {
        return redirected;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        if (!name.startsWith(packagePrefix)) {
            return super.loadClass(name, resolve);
        }
        synchronized (getClassLoadingLock(name)) {
            Class<?> loaded = findLoadedClass(name);
            if (loaded == null) {
                byte[] bytes = rewritten.get(name);
                if (bytes == null) {
                    throw new ClassNotFoundException(name + " was not among the classes rewritten to the stepped clock");
                }
                loaded = defineClass(name, bytes, 0, bytes.length);
            }
            if (resolve) {
                resolveClass(loaded);
            }
            return loaded;
        }
    }

    static byte[] rewrite(byte[] original, List<String> redirected) {
        ClassReader reader = new ClassReader(original);
        // COMPUTE_MAXS: a redirected now() pushes a clock first, one more stack slot. Frames need no recomputing:
        // every replacement is straight-line code leaving the stack as the original call did.
        ClassWriter writer = new ClassWriter(reader, ClassWriter.COMPUTE_MAXS);
        reader.accept(new ClassVisitor(Opcodes.ASM9, writer) {
            private String className;

            @Override
            public void visit(int version, int access, String name, String signature, String superName, String[] interfaces) {
                className = name.replace('/', '.');
                super.visit(version, access, name, signature, superName, interfaces);
            }

            @Override
            public MethodVisitor visitMethod(int access, String name, String descriptor, String signature, String[] exceptions) {
                return new Redirecting(super.visitMethod(access, name, descriptor, signature, exceptions),
                        className + "." + name, redirected);
            }
        }, 0);
        return writer.toByteArray();
    }

    /** Whether a call reads the wall clock (as opposed to a clock it is given, or the monotonic clock). */
    static boolean readsWallClock(String owner, String name, String descriptor) {
        return switch (owner) {
            case "java/lang/System" -> name.equals("currentTimeMillis");
            case "java/time/Clock" -> name.equals("systemUTC") || name.equals("systemDefaultZone") || name.equals("system")
                    || name.startsWith("tick") && descriptor.startsWith("(Ljava/time/ZoneId;)");
            case "java/time/InstantSource" -> name.equals("system");
            case "java/util/Date" -> name.equals("<init>") && descriptor.equals("()V");
            case "java/util/Calendar" -> name.equals("getInstance");
            case "java/util/GregorianCalendar" -> name.equals("<init>") && CURRENT_TIME_CALENDARS.contains(descriptor);
            default -> owner.startsWith("java/time/")
                    && (name.equals("now") || owner.startsWith("java/time/chrono/") && name.equals("dateNow"))
                    && !descriptor.startsWith("(Ljava/time/Clock;)");
        };
    }

    private static final class Redirecting extends MethodVisitor {
        private final String method;
        private final List<String> redirected;

        Redirecting(MethodVisitor next, String method, List<String> redirected) {
            super(Opcodes.ASM9, next);
            this.method = method;
            this.redirected = redirected;
        }

        @Override
        public void visitMethodInsn(int opcode, String owner, String name, String descriptor, boolean isInterface) {
            if (!readsWallClock(owner, name, descriptor)) {
                super.visitMethodInsn(opcode, owner, name, descriptor, isInterface);
                return;
            }
            if (opcode == Opcodes.INVOKESTATIC && owner.equals("java/lang/System")) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, STEPPED, "currentTimeMillis", "()J", false);
            } else if (opcode == Opcodes.INVOKESTATIC && owner.equals("java/time/Clock") && !name.startsWith("tick")) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, STEPPED, name, descriptor, false);
            } else if (opcode == Opcodes.INVOKESTATIC && name.equals("now") && descriptor.startsWith("()")) {
                super.visitMethodInsn(Opcodes.INVOKESTATIC, STEPPED, "systemDefaultZone", "()Ljava/time/Clock;", false);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, name, withClockArgument(descriptor), isInterface);
            } else if (opcode == Opcodes.INVOKESTATIC && name.equals("now") && descriptor.startsWith("(Ljava/time/ZoneId;)")) {
                // The zone on the stack becomes the stepped clock's zone.
                super.visitMethodInsn(Opcodes.INVOKESTATIC, STEPPED, "system", "(Ljava/time/ZoneId;)Ljava/time/Clock;", false);
                super.visitMethodInsn(Opcodes.INVOKESTATIC, owner, name, withClockArgument(descriptor), isInterface);
            } else if (opcode == Opcodes.INVOKESPECIAL && owner.equals("java/util/Date")) {
                // The new, not yet constructed Date stays on the stack; the time goes above it, for Date(long).
                super.visitMethodInsn(Opcodes.INVOKESTATIC, STEPPED, "currentTimeMillis", "()J", false);
                super.visitMethodInsn(Opcodes.INVOKESPECIAL, owner, name, "(J)V", false);
            } else {
                throw refused(owner + "." + name + descriptor);
            }
            redirected.add(method + ": " + owner + "." + name);
        }

        @Override
        public void visitInvokeDynamicInsn(String name, String descriptor, Handle bootstrap, Object... arguments) {
            for (Object argument : arguments) {
                refuseWallClockReference(argument);
            }
            super.visitInvokeDynamicInsn(name, descriptor, bootstrap, arguments);
        }

        @Override
        public void visitLdcInsn(Object value) {
            refuseWallClockReference(value);
            super.visitLdcInsn(value);
        }

        private void refuseWallClockReference(Object constant) {
            if (constant instanceof Handle handle && readsWallClock(handle.getOwner(), handle.getName(), handle.getDesc())) {
                throw refused("a method reference to " + handle.getOwner() + "." + handle.getName() + handle.getDesc());
            }
        }

        private IllegalStateException refused(String read) {
            return new IllegalStateException(method + " reads the wall clock through " + read + ", which "
                    + WallClockRedirectingClassLoader.class.getSimpleName() + " cannot point at the stepped clock:"
                    + " teach it this read, or the stand-in's clock would not follow the test's steps there");
        }

        private static String withClockArgument(String descriptor) {
            return "(Ljava/time/Clock;)" + descriptor.substring(descriptor.indexOf(')') + 1);
        }
    }
}
