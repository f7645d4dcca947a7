package io.github.mongolock.cdi;

import io.github.mongolock.LockConfigurationException;
import io.github.mongolock.core.LockArguments;
import java.lang.reflect.Method;
import java.lang.reflect.Parameter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A {@code @Locked} name template, parsed once when the application deploys: literal text and
 * references to argument positions ({@code {0}}) or parameter names ({@code {accountId}}), the latter
 * resolved to positions then. {@link #render} concatenates, and refuses a name it cannot make or that breaks
 * the lock name rules, naming the method and the template. Immutable and thread-safe.
 */
final class NameTemplate {

    /** A literal piece of text, or (when {@code text} is null) the argument at {@code argument}. */
    private record Part(String text, int argument) {
    }

    private final List<Part> parts;
    private final boolean staticName;
    /** The template as written, and the method it is on, for messages. */
    private final String template;
    private final String methodLabel;
    /** Per argument position, how messages name it: {@code {0} (accountId)}, or {@code {0}} without parameter names. */
    private final List<String> argumentLabels;

    private NameTemplate(List<Part> parts, String template, String methodLabel, Method method) {
        this.parts = List.copyOf(parts);
        this.staticName = this.parts.stream().allMatch(part -> part.text != null);
        this.template = template;
        this.methodLabel = methodLabel;
        List<String> labels = new ArrayList<>();
        for (Parameter parameter : method.getParameters()) {
            labels.add("{" + labels.size() + "}" + (parameter.isNamePresent() ? " (" + parameter.getName() + ")" : ""));
        }
        this.argumentLabels = List.copyOf(labels);
    }

    /**
     * Parses {@code template} for {@code method}; an empty template means {@code <declaring class>.<method>}.
     * Problems (each naming the method and quoting the template) go to {@code problems}; a template
     * without references is checked against the lock name rules here, at deployment.
     */
    static Optional<NameTemplate> parse(String template, Method method, String methodLabel, List<String> problems) {
        if (template.isEmpty()) {
            return Optional.of(new NameTemplate(List.of(new Part(method.getDeclaringClass().getName() + "." + method.getName(), -1)),
                    template, methodLabel, method));
        }
        List<Part> parts = new ArrayList<>();
        StringBuilder literal = new StringBuilder();
        int before = problems.size();
        int i = 0;
        while (i < template.length()) {
            char c = template.charAt(i);
            if (c == '{' && i + 1 < template.length() && template.charAt(i + 1) == '{') {
                literal.append('{');
                i += 2;
            } else if (c == '}' && i + 1 < template.length() && template.charAt(i + 1) == '}') {
                literal.append('}');
                i += 2;
            } else if (c == '}') {
                problems.add(CdiMessages.badTemplateSyntax(methodLabel, template, i, "a '}' closes no reference"));
                i++;
            } else if (c == '{') {
                int end = template.indexOf('}', i + 1);
                if (end < 0) {
                    problems.add(CdiMessages.badTemplateSyntax(methodLabel, template, i, "the '{' is never closed"));
                    break;
                }
                String reference = template.substring(i + 1, end).strip();
                int argument = resolve(reference, template, i, method, methodLabel, problems);
                if (argument >= 0) {
                    if (!literal.isEmpty()) {
                        parts.add(new Part(literal.toString(), -1));
                        literal.setLength(0);
                    }
                    parts.add(new Part(null, argument));
                }
                i = end + 1;
            } else {
                literal.append(c);
                i++;
            }
        }
        if (!literal.isEmpty()) {
            parts.add(new Part(literal.toString(), -1));
        }
        if (problems.size() > before) {
            return Optional.empty();
        }
        NameTemplate parsed = new NameTemplate(parts, template, methodLabel, method);
        if (parsed.isStatic()) {
            try {
                LockArguments.checkName(parsed.concatenated(new Object[0]));
            } catch (LockConfigurationException invalid) {
                problems.add(CdiMessages.badStaticName(methodLabel, invalid.getMessage()));
                return Optional.empty();
            }
        }
        return Optional.of(parsed);
    }

    /** The argument position {@code reference} stands for, or -1 after adding a problem. */
    private static int resolve(String reference, String template, int at, Method method, String methodLabel,
                                            List<String> problems) {
        Parameter[] parameters = method.getParameters();
        if (!reference.isEmpty() && reference.chars().allMatch(Character::isDigit)) {
            int index;
            try {
                index = Integer.parseInt(reference);
            } catch (NumberFormatException huge) {
                index = Integer.MAX_VALUE;
            }
            if (index >= parameters.length) {
                problems.add(CdiMessages.positionalReferenceOutOfRange(methodLabel, template, index, parameters.length));
                return -1;
            }
            return index;
        }
        if (reference.isEmpty() || !Character.isJavaIdentifierStart(reference.charAt(0))
                || !reference.chars().allMatch(Character::isJavaIdentifierPart)) {
            problems.add(CdiMessages.badTemplateSyntax(methodLabel, template, at,
                    "{" + reference + "} is neither an argument position nor a parameter name"));
            return -1;
        }
        if (parameters.length > 0 && !parameters[0].isNamePresent()) {
            problems.add(CdiMessages.parameterNamesMissing(methodLabel, template, reference));
            return -1;
        }
        for (int index = 0; index < parameters.length; index++) {
            if (parameters[index].getName().equals(reference)) {
                return index;
            }
        }
        problems.add(CdiMessages.unknownParameterName(methodLabel, template, reference,
                Arrays.stream(parameters).map(Parameter::getName).toList()));
        return -1;
    }

    /** True when the name does not depend on the arguments. */
    boolean isStatic() {
        return staticName;
    }

    /**
     * The lock name for one call: literal parts and the {@code toString()} of the referenced arguments.
     *
     * @throws LockConfigurationException ({@code MONGOLOCK-CDI-022}) when a referenced argument, or its
     *         {@code toString()}, is null: {@code "null"} would make one lock of every such call; ({@code MONGOLOCK-CDI-023})
     *         when the name breaks the lock name rules (static names were checked at deployment)
     */
    String render(Object[] arguments) {
        if (staticName) {
            return concatenated(arguments);
        }
        String name = concatenated(arguments);
        try {
            return LockArguments.checkName(name);
        } catch (LockConfigurationException invalid) {
            throw new LockConfigurationException(CdiMessages.badNameFromArguments(methodLabel, template, invalid.getMessage()));
        }
    }

    private String concatenated(Object[] arguments) {
        if (parts.size() == 1 && parts.get(0).text != null) {
            return parts.get(0).text;
        }
        StringBuilder name = new StringBuilder();
        for (Part part : parts) {
            if (part.text != null) {
                name.append(part.text);
                continue;
            }
            Object argument = arguments[part.argument];
            String text = argument == null ? null : argument.toString();
            if (text == null) {
                throw new LockConfigurationException(CdiMessages.nullNameArgument(methodLabel, template,
                        argumentLabels.get(part.argument)));
            }
            name.append(text);
        }
        return name.toString();
    }

    @Override
    public String toString() {
        StringBuilder shown = new StringBuilder();
        for (Part part : parts) {
            shown.append(part.text != null ? part.text.replace("{", "{{").replace("}", "}}") : "{" + part.argument + "}");
        }
        return shown.toString();
    }
}
