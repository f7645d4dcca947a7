package io.github.mongolock.examples.quarkus;

import io.github.mongolock.LockEvent;
import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.cdi.Leaderships;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** The example over HTTP: calls the {@code @Locked} beans, is one, and shows lock state through the injected {@link LockManager}. */
@Path("/api")
@Produces(MediaType.APPLICATION_JSON)
public class LockResource {

    @Inject
    Ledger ledger;

    @Inject
    Accounts accounts;

    @Inject
    NightlyReport report;

    @Inject
    LockManager locks;

    @Inject
    Leaderships leaderships;

    @Inject
    ClusterLeader leader;

    @Inject
    LockEvents events;

    public record Deposit(long balance) {
    }

    public record Charge(String receipt) {
    }

    public record LockState(String name, boolean held, String owner, long fencingToken, int holdCount, long acquiredEvents,
                            long releasedEvents) {
    }

    public record Report(int runs) {
    }

    public record Audit(long balance, String auditor) {
    }

    public record Leader(String election, boolean leader, long term, long lastGrantedTerm, String lastRevocation) {
    }

    @POST
    @Path("ledger/deposit")
    public Deposit deposit() {
        return new Deposit(ledger.deposit());
    }

    /**
     * A {@code @Locked} resource method: Quarkus REST resources are beans, so the interceptor applies to them too.
     * The lock's owner, read while the method runs, is this very call.
     */
    @POST
    @Path("ledger/audit")
    @Locked(value = "ledger-audit", waitTime = "PT0.3S")
    public Audit audit() {
        return new Audit(ledger.balance(), locks.inspect("ledger-audit").map(LockInfo::owner).orElse(null));
    }

    @POST
    @Path("accounts/{id}/charge")
    public Charge charge(@PathParam("id") String id, @QueryParam("cents") long cents) {
        return new Charge(accounts.charge(id, cents));
    }

    @GET
    @Path("locks/{name}")
    public LockState lock(@PathParam("name") String name) {
        LockInfo info = locks.inspect(name).orElse(null);
        return new LockState(name, info != null, info == null ? null : info.owner(), info == null ? 0 : info.fencingToken(),
                info == null ? 0 : info.holdCount(), events.count(LockEvent.Kind.ACQUIRED, name),
                events.count(LockEvent.Kind.RELEASED, name));
    }

    @GET
    @Path("report")
    public Report report() {
        return new Report(report.runs());
    }

    @GET
    @Path("leader")
    public Leader leader() {
        return new Leader(ClusterLeader.ELECTION, leaderships.isLeader(ClusterLeader.ELECTION),
                leaderships.term(ClusterLeader.ELECTION).orElse(0), leader.lastGrantedTerm(), leader.lastRevocation());
    }

    @POST
    @Path("leader/step-down")
    public Leader stepDown() {
        leaderships.stepDown(ClusterLeader.ELECTION);
        return leader();
    }
}
