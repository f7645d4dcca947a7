package io.github.mongolock.examples.helidon;

import io.github.mongolock.Locked;
import jakarta.enterprise.context.ApplicationScoped;

/** One lock per account, named from the argument: charges of one account run one at a time, cluster-wide. */
@ApplicationScoped
public class Accounts {

    /**
     * Waits for the account's lock, then fails with {@code LockTimeoutException} (HTTP 409). The annotation says 5 s;
     * microprofile-config.properties shortens it to 0.3 s for this method only
     * ({@code io.github.mongolock.examples.helidon.Accounts/charge/Locked/wait-time}).
     */
    @Locked(value = "account-{accountId}", waitTime = "PT5S")
    public String charge(String accountId, long cents) {
        return "charged " + cents + " cents to account " + accountId;
    }
}
