package io.github.mongolock.examples.quarkus;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** One lock per account, named from the argument: charges of one account run one at a time, cluster-wide. */
@ApplicationScoped
public class Accounts {

    /** Waits at most 0.3 s for the account, then fails with {@code LockTimeoutException} (HTTP 409). */
    @Locked(value = "account-{accountId}", waitTime = "PT0.3S")
    public String charge(String accountId, long cents) {
        return "charged " + cents + " cents to account " + accountId;
    }
}
