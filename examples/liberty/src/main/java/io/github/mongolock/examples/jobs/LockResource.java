package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.cdi.LockStoreStatus;
import jakarta.enterprise.context.RequestScoped;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import org.bson.Document;

/** HTTP entry points to every case, and the lock state as stored now. */
@Path("/")
@RequestScoped
@Produces(MediaType.APPLICATION_JSON)
public class LockResource {

    @Inject
    Ledger ledger;

    @Inject
    Accounts accounts;

    @Inject
    Imports imports;

    @Inject
    LockManager locks;

    @Inject
    LockStoreStatus store;

    @Inject
    ExampleData data;

    @Inject
    ClusterLeader leader;

    @Inject
    TickHandicap tickHandicap;

    @POST
    @Path("ledger")
    public Ledger.Section increment() {
        return ledger.increment();
    }

    @GET
    @Path("ledger")
    public LedgerState ledger() {
        Document counter = data.counters().find(new Document("_id", Ledger.LOCK)).first();
        List<Ledger.Section> sections = new ArrayList<>();
        for (Document section : data.sections().find()) {
            sections.add(new Ledger.Section(section.getString("server"), section.getString("owner"),
                    section.getLong("token"), section.getLong("value"), section.getLong("startNanos"),
                    section.getLong("endNanos"), 0));
        }
        Long fence = counter == null ? null : counter.getLong(data.fencedCounters().fenceField());
        return new LedgerState(counter == null ? 0 : counter.getLong("value"), fence == null ? 0 : fence, sections);
    }

    @POST
    @Path("accounts/{id}/charges")
    public Accounts.Charge charge(@PathParam("id") String account, @QueryParam("cents") long cents) {
        return accounts.charge(account, cents);
    }

    @POST
    @Path("imports/{id}")
    public Imports.Result runImport(@PathParam("id") String importId) {
        return imports.run(importId);
    }

    @GET
    @Path("reports")
    public List<ReportRun> reports() {
        List<ReportRun> runs = new ArrayList<>();
        for (Document run : data.reportRuns().find()) {
            runs.add(new ReportRun(run.getLong("tick"), run.getString("server"), run.getLong("at"),
                    run.getString("lockHolder")));
        }
        return runs;
    }

    /** The Jakarta EE 11 scheduled report: every run, and every scheduled call, skipped or not. */
    @GET
    @Path("ticks")
    public Ticks ticks() {
        List<TickRun> runs = new ArrayList<>();
        for (Document run : data.tickRuns().find()) {
            runs.add(new TickRun(run.getLong("tick"), run.getString("server"), run.getLong("at"),
                    run.getString("lockHolder"), run.getString("thread")));
        }
        List<TickAttempt> attempts = new ArrayList<>();
        for (Document attempt : data.tickAttempts().find()) {
            attempts.add(new TickAttempt(attempt.getLong("tick"), attempt.getString("server"), attempt.getLong("at"),
                    attempt.getString("thread"), attempt.getBoolean("lockHeldBefore"), attempt.getBoolean("handicapped"),
                    attempt.getString("returned")));
        }
        return new Ticks(runs, attempts);
    }

    /** For the next {@code seconds}, this instance tries the tick-report lock 1 s late: another instance runs those ticks. */
    @POST
    @Path("ticks/handicap")
    public Response handicapTicks(@QueryParam("seconds") long seconds) {
        tickHandicap.handicapFor(seconds);
        return Response.noContent().build();
    }

    @GET
    @Path("locks/{name}")
    public Response inspect(@PathParam("name") String name) {
        return locks.inspect(name).map(info -> Response.ok(info))
                .orElseGet(() -> Response.status(Response.Status.NOT_FOUND).entity(new Free(name))).build();
    }

    @GET
    @Path("leader")
    public ClusterLeader.Status leader() {
        return leader.status();
    }

    @POST
    @Path("leader/step-down")
    public ClusterLeader.Status stepDown() {
        leader.stepDown();
        return leader.status();
    }

    @GET
    @Path("info")
    public Info info() {
        return new Info(data.serverName(), store.instanceId(), store.storeAvailable(), store.pushWakeUp());
    }

    /** @param fence the highest lock token that read or wrote the counter; 0 before the first fenced write */
    public record LedgerState(long value, long fence, List<Ledger.Section> sections) {
    }

    public record ReportRun(long tick, String server, long at, String lockHolder) {
    }

    public record Ticks(List<TickRun> runs, List<TickAttempt> attempts) {
    }

    public record TickRun(long tick, String server, long at, String lockHolder, String thread) {
    }

    /** @param returned what the run returned to Concurrency's scheduler, as text: "null" keeps the schedule going */
    public record TickAttempt(long tick, String server, long at, String thread, boolean lockHeldBefore, boolean handicapped,
                              String returned) {
    }

    public record Free(String name) {
    }

    public record Info(String server, String instanceId, boolean storeAvailable, String pushWakeUp) {
    }
}
