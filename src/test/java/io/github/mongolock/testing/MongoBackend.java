package io.github.mongolock.testing;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * JUnit extension that injects the shared {@link TestMongo} into test constructors, lifecycle and
 * test methods: {@code @ExtendWith(MongoBackend.class)}.
 */
public final class MongoBackend implements ParameterResolver {

    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        return parameter.getParameter().getType() == TestMongo.class;
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        return TestMongo.shared(context);
    }
}
