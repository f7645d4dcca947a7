package io.github.mongolock.examples.jobs;

import io.github.mongolock.LockInfo;
import io.github.mongolock.LockManager;
import io.github.mongolock.Locked;
import io.github.mongolock.OnLeaseLost;
import jakarta.ejb.Stateless;
import jakarta.inject.Inject;
import java.time.Duration;
import java.time.Instant;
import org.bson.Document;

/** The EJB case: a stateless session bean whose lock name comes from an argument. */
@Stateless
public class Accounts {

    @Inject
    LockManager locks;

    @Inject
    ExampleData data;

    /**
     * One charge per account at a time, cluster-wide; waits PT3S (a per-method config override). If the
     * lease is lost while it runs, the thread is interrupted, so the MongoDB write below is not made.
     */
    @Locked(value = "account-{accountId}", waitTime = "PT5S", onLeaseLost = OnLeaseLost.INTERRUPT)
    public Charge charge(String accountId, long cents) {
        LockInfo lock = locks.inspect("account-" + accountId).orElseThrow(() -> new IllegalStateException("not locked"));
        data.charges().insertOne(new Document("account", accountId).append("cents", cents)
                .append("token", lock.fencingToken()).append("server", data.serverName()));
        return new Charge(accountId, cents, data.serverName(), lock.owner(), lock.fencingToken(), lock.holdCount(),
                Duration.between(Instant.now(), lock.expiresAt()).toMillis());
    }

    /**
     * @param leaseLeftMs how long the lease has left, by the database's clock: about
     *                    {@code mongolock.lease-time} right after the acquisition
     */
    public record Charge(String account, long cents, String server, String owner, long token, int holdCount,
                         long leaseLeftMs) {
    }
}
