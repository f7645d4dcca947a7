package io.github.mongolock.examples.helidon;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/**
 * The example over HTTP, in plain text (Helidon MP core has no JSON binding): calls the {@code @Locked} beans, is one
 * itself, and shows lock state through the injected {@link LockManager}.
 */
@Path("/api")
@RequestScoped
@Produces(MediaType.TEXT_PLAIN)
public class LockResource {

    @Inject
    Ledger ledger;

    @Inject
    Accounts accounts;

    @Inject
    LockManager locks;

    @Inject
    LockEvents events;

    @POST
    @Path("ledger/deposit")
    public String deposit() {
        return Long.toString(ledger.deposit());
    }

    /** A {@code @Locked} resource method: the answer is the lock's owner read while the method runs, this very call. */
    @POST
    @Path("ledger/audit")
    @Locked(value = "ledger-audit", waitTime = "PT0.3S")
    public String audit() {
        return locks.inspect("ledger-audit").map(LockInfo::owner).orElse("nobody");
    }

    @POST
    @Path("accounts/{id}/charge")
    public String charge(@PathParam("id") String id, @QueryParam("cents") long cents) {
        return accounts.charge(id, cents);
    }

    /** {@code <name> held by <owner> token <t>}, or {@code <name> free}; then the ACQUIRED and RELEASED event counts. */
    @GET
    @Path("locks/{name}")
    public String lock(@PathParam("name") String name) {
        String state = locks.inspect(name).map(info -> name + " held by " + info.owner() + " token " + info.fencingToken())
                .orElse(name + " free");
        return state + "; acquired " + events.count(LockEvent.Kind.ACQUIRED, name) + ", released "
                + events.count(LockEvent.Kind.RELEASED, name);
    }
}
