package io.github.mongolock.examples.helidon;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** Plain-text HTTP to the application on 127.0.0.1, every call bounded by a timeout. */
final class Http {

    private static final HttpClient CLIENT = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int status, String body) {
    }

    private Http() {
    }

    static Answer get(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).GET());
    }

    static Answer post(int port, String path) {
        return send(HttpRequest.newBuilder(uri(port, path)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static URI uri(int port, String path) {
        return URI.create("http://127.0.0.1:" + port + "/" + path);
    }

    private static Answer send(HttpRequest.Builder request) {
        try {
            HttpResponse<String> response = CLIENT.send(request.timeout(Duration.ofSeconds(30)).build(),
                    HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), response.body());
        } catch (IOException failed) {
            throw new AssertionError("HTTP request failed: " + failed, failed);
        } catch (InterruptedException interrupted) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", interrupted);
        }
    }
}
