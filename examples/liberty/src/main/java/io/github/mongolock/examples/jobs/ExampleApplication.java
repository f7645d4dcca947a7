package io.github.mongolock.examples.jobs;

import jakarta.ws.rs.ApplicationPath;
import jakarta.ws.rs.core.Application;

@ApplicationPath("/api")
public class ExampleApplication extends Application {
}
