package io.github.mongolock.examples.helidon;

import io.github.mongolock.LockTimeoutException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.ext.ExceptionMapper;
import jakarta.ws.rs.ext.Provider;

/** A lock still busy after its wait time: 409 Conflict, with mongolock's message (it names the lock and its holder). */
@Provider
public class LockTimeoutMapper implements ExceptionMapper<LockTimeoutException> {

    @Override
    public Response toResponse(LockTimeoutException busy) {
        return Response.status(Response.Status.CONFLICT).type(MediaType.TEXT_PLAIN).entity(busy.getMessage()).build();
    }
}
