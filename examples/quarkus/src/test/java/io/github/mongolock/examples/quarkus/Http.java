package io.github.mongolock.examples.quarkus;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.bson.Document;

/** Calls the application under test over HTTP, with a time limit on every request. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Http() {
    }

    record Answer(int status, String body) {
        Document json() {
            return Document.parse(body);
        }
    }

    static Answer get(URI base, String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).GET());
    }

    static Answer post(URI base, String path) {
        return send(HttpRequest.newBuilder(base.resolve(path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    /** A JSON number, whichever size the parser picked. */
    static long number(Document json, String key) {
        return ((Number) json.get(key)).longValue();
    }

    private static Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException failed) {
            throw new IllegalStateException("HTTP call failed: " + failed, failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", interrupted);
        }
    }
}
