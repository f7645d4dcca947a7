package io.github.mongolock;

import static org.junit.jupiter.api.Assertions.fail;

import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.eclipse.microprofile.config.Config;
import org.junit.jupiter.api.Test;

/**
 * docs/configuration.md is the one reference of mongolock's settings; this test keeps it in step with the
 * code, both ways. Sources of truth: the key constants of {@code cdi.LockManagerSettings} (defaults as read
 * from an empty configuration) and {@code cdi.LeadershipSettings} (defaults from
 * {@link LeadershipOptions#defaults()}), the override members of {@code cdi.LockedOperations}, the members of
 * {@link Locked} with their {@code default}s, the public methods of {@link MongoLockManager.Builder}
 * ({@code MongoLockManager.DEFAULT_*}, else a fresh builder's field), and the "with" methods of
 * {@link LockOptions} and {@link LeadershipOptions} (defaults through their {@code defaults()}).
 *
 * <p>The document's tables are told apart by the header of their first column; each row names exactly
 * one key, member or method in backticks. A default cell that starts with a value in backticks states that
 * value; one that starts with words says the code has no fixed value (none, generated, the manager's).
 * Every failure names what to add, remove or correct; all are reported together.
 */
class ConfigurationReferenceTest {

    private static final Path REFERENCE = Path.of("docs", "configuration.md");
    private static final Path README = Path.of("README.md");
    private static final Pattern SEPARATOR = Pattern.compile("\\|(\\s*:?-+:?\\s*\\|)+");
    private static final Pattern ONE_CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern LEADING_CODE_SPAN = Pattern.compile("^`([^`]*)`");
    private static final Pattern METHOD_SPAN = Pattern.compile("`([A-Za-z]\\w*\\([^`]*\\))`");

    /** The tables of docs/configuration.md, by the header of their first column. */
    enum Kind {
        BUILDER("builder method"),
        LOCK_OPTIONS("LockOptions method"),
        LEADERSHIP_OPTIONS("LeadershipOptions method"),
        KEY("key"),
        OVERRIDE("override key"),
        LOCKED("@Locked member");

        /** The header of the table's first column, which is also what its rows name (e.g. "key"). */
        final String header;

        Kind(String header) {
            this.header = header;
        }

        static Optional<Kind> of(String header) {
            return Arrays.stream(values()).filter(kind -> kind.header.equals(header)).findFirst();
        }
    }

    /** One documented row: its first column, its default cell, and where it is. */
    record Row(String item, String defaultCell, String file, int line) {
        /** The value the default cell states, or empty when it starts with words (no fixed value). */
        Optional<String> stated() {
            Matcher leading = LEADING_CODE_SPAN.matcher(defaultCell);
            return leading.find() ? Optional.of(leading.group(1)) : Optional.empty();
        }

        String where() {
            return file + " line " + line;
        }
    }

    /**
     * What the code says about one item: where it is declared, where its default was read, and that default
     * if it has a fixed one.
     */
    record InCode(String declaredIn, String defaultFrom, Optional<String> fixedDefault) {
    }

    @Test
    void everyConfigurationKeyIsDocumentedWithItsDefault() throws Exception {
        Map<String, InCode> keys = new LinkedHashMap<>();
        keys.putAll(lockManagerKeys());
        keys.putAll(leadershipKeys());
        check(Kind.KEY, keys);
    }

    @Test
    void everyOverrideKeyIsDocumented() throws Exception {
        Map<String, InCode> keys = new LinkedHashMap<>();
        for (Map.Entry<String, String> member : stringConstants(cdiClass("LockedOperations")).entrySet()) {
            String declaredIn = "LockedOperations (constant " + member.getKey() + ")";
            for (String scope : List.of("<class>/<method>/Locked/", "<class>/Locked/", "Locked/")) {
                keys.put(scope + member.getValue(), new InCode(declaredIn, "an override, unset unless configured",
                        Optional.empty()));
            }
        }
        check(Kind.OVERRIDE, keys);
    }

    @Test
    void everyLockedMemberIsDocumentedWithItsDefault() throws IOException {
        Map<String, InCode> members = new LinkedHashMap<>();
        for (Method member : Locked.class.getDeclaredMethods()) {
            members.put(member.getName(), new InCode("@Locked", "@Locked." + member.getName() + "() default",
                    Optional.ofNullable(member.getDefaultValue()).map(ConfigurationReferenceTest::render)));
        }
        check(Kind.LOCKED, members);
    }

    @Test
    void everyBuilderMethodIsDocumentedWithItsDefault() throws Exception {
        MongoLockManager.Builder fresh = MongoLockManager.builder();
        Map<String, InCode> methods = new LinkedHashMap<>();
        for (Method method : publicMethods(MongoLockManager.Builder.class)) {
            String constant = "DEFAULT_" + snake(method.getName());
            Optional<String> fixed;
            String source;
            Optional<Field> defaultField = staticField(MongoLockManager.class, constant);
            Optional<Field> builderField = field(MongoLockManager.Builder.class, method.getName());
            if (defaultField.isPresent()) {
                fixed = literal(defaultField.get().get(null));
                source = "MongoLockManager." + constant;
            } else if (builderField.isPresent()) {
                fixed = literal(builderField.get().get(fresh));
                source = "the field " + method.getName() + " of a fresh MongoLockManager.Builder";
            } else {
                fixed = Optional.empty();
                source = "MongoLockManager.Builder (no default: neither MongoLockManager." + constant + " nor a field "
                        + method.getName() + ")";
            }
            methods.put(signature(method), new InCode("MongoLockManager.Builder", source, fixed));
        }
        check(Kind.BUILDER, methods);
    }

    @Test
    void everyLockOptionsMethodIsDocumentedWithItsDefault() throws Exception {
        check(Kind.LOCK_OPTIONS, withMethods(LockOptions.class, LockOptions.defaults()));
    }

    @Test
    void everyLeadershipOptionsMethodIsDocumentedWithItsDefault() throws Exception {
        check(Kind.LEADERSHIP_OPTIONS, withMethods(LeadershipOptions.class, LeadershipOptions.defaults()));
    }

    /** The README's short table of the settings people set first states the same defaults as the reference. */
    @Test
    void theReadmeAgreesWithTheReference() throws IOException {
        Map<Kind, Map<String, Row>> reference = parse(REFERENCE);
        List<String> problems = new ArrayList<>();
        for (Table table : tables(README)) {
            if (!table.header().get(0).equals("MicroProfile Config key")) {
                continue;
            }
            int builderColumn = table.header().indexOf("builder method");
            int defaultColumn = table.header().indexOf("default");
            for (Table.Line line : table.rows()) {
                Row row = row(line, defaultColumn, README.toString(), problems);
                if (row == null) {
                    continue;
                }
                Row documented = reference.get(Kind.KEY).get(row.item());
                if (documented == null) {
                    problems.add("key " + row.item() + " is in " + row.where() + " but not in " + REFERENCE
                            + ": document it there first, or correct the README");
                } else if (!documented.stated().equals(row.stated())) {
                    problems.add("key " + row.item() + ": " + row.where() + " gives the default " + describe(row.stated())
                            + ", " + documented.where() + " gives " + describe(documented.stated())
                            + ": make the README say what the reference says");
                }
                if (builderColumn >= 0) {
                    Matcher method = METHOD_SPAN.matcher(line.cells().get(builderColumn));
                    while (method.find()) {
                        if (!reference.get(Kind.BUILDER).containsKey(method.group(1))) {
                            problems.add("builder method " + method.group(1) + " is in " + row.where() + " but not in "
                                    + REFERENCE + ": correct the README");
                        }
                    }
                }
            }
        }
        report(problems);
    }

    // ---- the code's side

    /** Keys of LockManagerSettings, each with the value the settings hold when the configuration is empty. */
    private static Map<String, InCode> lockManagerKeys() throws Exception {
        Class<?> settings = cdiClass("LockManagerSettings");
        Class<?> reader = cdiClass("ConfigReader");
        Constructor<?> newReader = reader.getDeclaredConstructor(Config.class);
        newReader.setAccessible(true);
        Method read = settings.getDeclaredMethod("read", reader, List.class);
        read.setAccessible(true);
        List<String> problems = new ArrayList<>();
        Object defaults = read.invoke(null, newReader.newInstance(new SmallRyeConfigBuilder().build()), problems);
        if (!problems.isEmpty()) {
            fail("LockManagerSettings.read found problems in an empty configuration: " + problems);
        }
        Map<String, RecordComponent> components = Arrays.stream(settings.getRecordComponents())
                .collect(Collectors.toMap(RecordComponent::getName, Function.identity()));
        Map<String, InCode> keys = new LinkedHashMap<>();
        for (Map.Entry<String, String> constant : stringConstants(settings).entrySet()) {
            String key = constant.getValue();
            String source = "LockManagerSettings." + constant.getKey();
            if (!key.startsWith("mongolock.")) {
                fail(source + " = \"" + key + "\" is not a mongolock.* key: this test reads every String constant of"
                        + " LockManagerSettings as a key; adapt the test if that changed on purpose");
            }
            // The record component holding the key's value: its name in camelCase, or for a switch
            // (x.enabled) the name of what it switches.
            String name = camel(key.substring("mongolock.".length()));
            RecordComponent component = components.getOrDefault(name,
                    components.get(camel(key.substring("mongolock.".length()).replaceFirst("\\.enabled$", ""))));
            if (component == null) {
                fail(source + " (" + key + ") has no record component " + name + " in LockManagerSettings to read its"
                        + " default from: name the component after the key, or adapt this test");
            }
            Method accessor = component.getAccessor();
            accessor.setAccessible(true);
            Object value = accessor.invoke(defaults);
            keys.put(key, new InCode("LockManagerSettings (constant " + constant.getKey() + ")",
                    "LockManagerSettings." + component.getName() + "() read from an empty configuration", literal(value)));
        }
        return keys;
    }

    /** Keys of LeadershipSettings: its full keys, and each member under the prefix and under one election. */
    private static Map<String, InCode> leadershipKeys() throws Exception {
        Map<String, String> constants = stringConstants(cdiClass("LeadershipSettings"));
        String prefix = constants.values().stream().filter(value -> value.endsWith(".")).findFirst()
                .orElseThrow(() -> new AssertionError("LeadershipSettings has no prefix constant (a value ending in '.')"));
        Map<String, InCode> keys = new LinkedHashMap<>();
        for (Map.Entry<String, String> constant : constants.entrySet()) {
            String value = constant.getValue();
            String source = "LeadershipSettings." + constant.getKey();
            if (value.equals(prefix)) {
                continue;
            }
            if (value.startsWith("mongolock.")) {
                // A whole key such as the list of names: nothing is joined unless it is set.
                keys.put(value, new InCode("LeadershipSettings (constant " + constant.getKey() + ")", "unset unless configured",
                        Optional.empty()));
                continue;
            }
            Method getter;
            try {
                getter = LeadershipOptions.class.getMethod(camel(value));
            } catch (NoSuchMethodException missing) {
                throw new AssertionError(source + " = \"" + value + "\" has no LeadershipOptions." + camel(value)
                        + "() to read its default from: add the getter, or adapt this test", missing);
            }
            Optional<String> fixed = literal(getter.invoke(LeadershipOptions.defaults()));
            String declaredIn = "LeadershipSettings (constant " + constant.getKey() + ")";
            String from = "LeadershipOptions.defaults()." + getter.getName() + "()";
            keys.put(prefix + value, new InCode(declaredIn, from, fixed));
            keys.put(prefix + "<name>." + value, new InCode(declaredIn, from, fixed));
        }
        return keys;
    }

    /** The public methods returning a changed copy, with the default read through the getter of the same name. */
    private static Map<String, InCode> withMethods(Class<?> type, Object defaults) throws Exception {
        Map<String, InCode> methods = new LinkedHashMap<>();
        for (Method method : publicMethods(type)) {
            if (method.getReturnType() != type || method.getParameterCount() != 1) {
                continue;
            }
            Method getter = type.getMethod(method.getName());
            methods.put(signature(method), new InCode(type.getSimpleName(),
                    type.getSimpleName() + ".defaults()." + method.getName() + "()", literal(getter.invoke(defaults))));
        }
        return methods;
    }

    private static Class<?> cdiClass(String simpleName) throws ClassNotFoundException {
        return Class.forName("io.github.mongolock.cdi." + simpleName);
    }

    /** The static final String fields declared by {@code type}, by name, in declaration order. */
    private static Map<String, String> stringConstants(Class<?> type) throws IllegalAccessException {
        Map<String, String> constants = new LinkedHashMap<>();
        for (Field field : type.getDeclaredFields()) {
            int modifiers = field.getModifiers();
            if (Modifier.isStatic(modifiers) && Modifier.isFinal(modifiers) && field.getType() == String.class) {
                field.setAccessible(true);
                constants.put(field.getName(), (String) field.get(null));
            }
        }
        return constants;
    }

    private static List<Method> publicMethods(Class<?> type) {
        return Arrays.stream(type.getDeclaredMethods())
                .filter(method -> Modifier.isPublic(method.getModifiers()) && !Modifier.isStatic(method.getModifiers())
                        && !method.isSynthetic())
                .filter(method -> !List.of("equals", "hashCode", "toString").contains(method.getName()))
                .toList();
    }

    private static Optional<Field> staticField(Class<?> type, String name) {
        return Arrays.stream(type.getDeclaredFields())
                .filter(field -> field.getName().equals(name) && Modifier.isStatic(field.getModifiers()))
                .peek(field -> field.setAccessible(true)).findFirst();
    }

    private static Optional<Field> field(Class<?> type, String name) {
        return Arrays.stream(type.getDeclaredFields())
                .filter(field -> field.getName().equals(name) && !Modifier.isStatic(field.getModifiers()))
                .peek(field -> field.setAccessible(true)).findFirst();
    }

    private static String signature(Method method) {
        return method.getName() + Arrays.stream(method.getParameterTypes()).map(Class::getSimpleName)
                .collect(Collectors.joining(", ", "(", ")"));
    }

    /** A default as the document writes it; empty for no value (null, empty Optional) or a non-literal object. */
    private static Optional<String> literal(Object value) {
        if (value instanceof Optional<?> optional) {
            return optional.flatMap(ConfigurationReferenceTest::literal);
        }
        if (value instanceof String || value instanceof Boolean || value instanceof Number || value instanceof Duration
                || value instanceof Enum<?>) {
            return Optional.of(render(value));
        }
        return Optional.empty();
    }

    private static String render(Object value) {
        if (value instanceof Enum<?> constant) {
            return constant.name();
        }
        if (value instanceof String[] values) {
            // As the annotation writes it: one element without braces (@Locked's value() default "").
            return values.length == 1 ? render(values[0])
                    : java.util.Arrays.stream(values).map(ConfigurationReferenceTest::render).collect(java.util.stream.Collectors.joining(", ", "{", "}"));
        }
        return "".equals(value) ? "\"\"" : String.valueOf(value);
    }

    /** lease-time, push-wake-up, interceptor.priority to leaseTime, pushWakeUp, interceptorPriority. */
    private static String camel(String key) {
        StringBuilder name = new StringBuilder();
        boolean upper = false;
        for (char c : key.toCharArray()) {
            if (c == '-' || c == '.') {
                upper = true;
            } else {
                name.append(upper ? Character.toUpperCase(c) : c);
                upper = false;
            }
        }
        return name.toString();
    }

    /** leaseTime to LEASE_TIME. */
    private static String snake(String name) {
        return name.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toUpperCase();
    }

    // ---- the document's side

    /** Compares one kind of table with the code, both ways, defaults included. */
    private static void check(Kind kind, Map<String, InCode> code) throws IOException {
        Map<String, Row> documented = parse(REFERENCE).get(kind);
        List<String> problems = new ArrayList<>();
        code.forEach((item, inCode) -> {
            Row row = documented.get(item);
            if (row == null) {
                problems.add(kind.header + " " + item + " is in " + inCode.declaredIn() + " but not in " + REFERENCE
                        + ": add a row to a table whose first column is \"" + kind.header + "\"");
            } else if (!row.stated().equals(inCode.fixedDefault())) {
                problems.add(kind.header + " " + item + ": " + row.where() + " gives the default " + describe(row.stated())
                        + ", the code's is " + describe(inCode.fixedDefault()) + " (" + inCode.defaultFrom() + "): "
                        + (inCode.fixedDefault().isPresent()
                        ? "start the default cell with `" + inCode.fixedDefault().get() + "`"
                        : "start the default cell with words, e.g. none"));
            }
        });
        documented.forEach((item, row) -> {
            if (!code.containsKey(item)) {
                problems.add(kind.header + " " + item + " is in " + row.where() + " but not in the code (" + kind.header
                        + "s there: " + code.keySet() + "): remove the row, or correct its name");
            }
        });
        report(problems);
    }

    private static String describe(Optional<String> stated) {
        return stated.map(value -> "`" + value + "`").orElse("no fixed value");
    }

    private static void report(List<String> problems) {
        if (!problems.isEmpty()) {
            fail(problems.size() + " difference(s) between the code and the documentation:\n  - "
                    + String.join("\n  - ", problems));
        }
    }

    /** Every table of the reference, by kind and first column; a table or row the test cannot read fails it. */
    private static Map<Kind, Map<String, Row>> parse(Path file) throws IOException {
        Map<Kind, Map<String, Row>> rows = new LinkedHashMap<>();
        for (Kind kind : Kind.values()) {
            rows.put(kind, new LinkedHashMap<>());
        }
        List<String> problems = new ArrayList<>();
        for (Table table : tables(file)) {
            String first = table.header().get(0);
            Optional<Kind> kind = Kind.of(first);
            int defaultColumn = table.header().indexOf("default");
            if (kind.isEmpty()) {
                problems.add(file + " line " + table.line() + ": a table whose first column is \"" + first + "\", which"
                        + " this test does not know; use one of " + Arrays.stream(Kind.values()).map(k -> "\"" + k.header
                        + "\"").toList() + ", or teach ConfigurationReferenceTest.Kind the new one");
                continue;
            }
            if (defaultColumn < 0) {
                problems.add(file + " line " + table.line() + ": the \"" + first + "\" table has no \"default\" column");
                continue;
            }
            for (Table.Line line : table.rows()) {
                Row row = row(line, defaultColumn, file.toString(), problems);
                if (row != null && rows.get(kind.get()).putIfAbsent(row.item(), row) != null) {
                    problems.add(row.where() + ": " + kind.get().header + " " + row.item() + " is documented twice (also "
                            + rows.get(kind.get()).get(row.item()).where() + "): keep one row");
                }
            }
        }
        if (!problems.isEmpty()) {
            fail(file + " cannot be read as a configuration reference:\n  - " + String.join("\n  - ", problems));
        }
        return rows;
    }

    /** A row's item (its first cell, exactly one name in backticks) and default cell; null after adding a problem. */
    private static Row row(Table.Line line, int defaultColumn, String file, List<String> problems) {
        Matcher item = ONE_CODE_SPAN.matcher(line.cells().get(0));
        if (!item.matches()) {
            problems.add(file + " line " + line.number() + ": the first cell must be exactly one name in backticks,"
                    + " e.g. `mongolock.lease-time` or `leaseTime(Duration)`; found \"" + line.cells().get(0) + "\"");
            return null;
        }
        String defaultCell = line.cells().get(defaultColumn);
        if (defaultCell.isEmpty()) {
            problems.add(file + " line " + line.number() + ": " + item.group(1) + " has an empty default cell; write the"
                    + " default in backticks, or words such as none");
            return null;
        }
        return new Row(item.group(1), defaultCell, file, line.number());
    }

    /** A Markdown table: its header cells (backticks removed) and rows, each with the same number of cells. */
    record Table(int line, List<String> header, List<Line> rows) {
        record Line(int number, List<String> cells) {
        }
    }

    private static List<Table> tables(Path file) throws IOException {
        List<String> lines = Files.readAllLines(file);
        List<Table> tables = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean fenced = false;
        for (int i = 0; i < lines.size(); i++) {
            String text = lines.get(i).strip();
            if (text.startsWith("```")) {
                fenced = !fenced;
            }
            if (fenced || !text.startsWith("|")) {
                continue;
            }
            int start = i;
            List<String> header = cells(text).stream().map(cell -> cell.replace("`", "")).toList();
            if (i + 1 >= lines.size() || !SEPARATOR.matcher(lines.get(i + 1).strip()).matches()) {
                problems.add(file + " line " + (start + 1) + ": a table row without a header separator (|---|) below it");
            }
            List<Table.Line> rows = new ArrayList<>();
            for (i = i + 2; i < lines.size() && lines.get(i).strip().startsWith("|"); i++) {
                List<String> cells = cells(lines.get(i).strip());
                if (cells.size() != header.size()) {
                    problems.add(file + " line " + (i + 1) + ": " + cells.size() + " cells where the header has "
                            + header.size() + " (a '|' inside a cell must be in backticks)");
                } else {
                    rows.add(new Table.Line(i + 1, cells));
                }
            }
            tables.add(new Table(start + 1, header, rows));
        }
        if (!problems.isEmpty()) {
            fail(file + " has tables this test cannot read:\n  - " + String.join("\n  - ", problems));
        }
        return tables;
    }

    /** The cells of a table line, split on '|' outside code spans, stripped. */
    private static List<String> cells(String line) {
        List<String> cells = new ArrayList<>();
        StringBuilder cell = new StringBuilder();
        boolean code = false;
        for (int i = 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (c == '`') {
                code = !code;
            }
            if (c == '|' && !code) {
                cells.add(cell.toString().strip());
                cell.setLength(0);
            } else {
                cell.append(c);
            }
        }
        if (!cell.toString().isBlank()) {
            cells.add(cell.toString().strip());
        }
        return cells;
    }
}
