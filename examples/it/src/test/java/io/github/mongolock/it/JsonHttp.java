package io.github.mongolock.it;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import org.bson.Document;

/** The only way the tests talk to the servers: HTTP, with JSON answers read as BSON documents. */
final class JsonHttp {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    record Answer(int status, String body) {
        Document json() {
            return Document.parse(body);
        }

        List<Document> jsonList() {
            return Document.parse("{\"items\": " + body + "}").getList("items", Document.class);
        }
    }

    private JsonHttp() {
    }

    static Answer get(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).GET());
    }

    /** The HTTP status, or 0 when nothing listens there. */
    static int statusOrZero(String url) throws InterruptedException {
        try {
            return get(url).status();
        } catch (IOException notListening) {
            return 0;
        }
    }

    static Answer post(String url) throws IOException, InterruptedException {
        return send(HttpRequest.newBuilder(URI.create(url)).POST(HttpRequest.BodyPublishers.noBody()));
    }

    private static Answer send(HttpRequest.Builder request) throws IOException, InterruptedException {
        HttpResponse<String> response = HTTP.send(request.timeout(Duration.ofSeconds(60))
                .header("Accept", "application/json").build(), HttpResponse.BodyHandlers.ofString());
        return new Answer(response.statusCode(), response.body());
    }

    /** A 200 answer's JSON, or a failure that shows what the server said. */
    static Document ok(Answer answer, String what) {
        if (answer.status() != 200) {
            throw new AssertionError(what + ": HTTP " + answer.status() + ": " + answer.body());
        }
        return answer.json();
    }
}
