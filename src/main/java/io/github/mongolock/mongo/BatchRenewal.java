package io.github.mongolock.mongo;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.in;
import static com.mongodb.client.model.Projections.include;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static io.github.mongolock.mongo.LockDocument.BEAT;
import static io.github.mongolock.mongo.LockDocument.ID;
import static io.github.mongolock.mongo.LockDocument.LEASE_ID;
import static io.github.mongolock.mongo.LockDocument.OWNER;
import static io.github.mongolock.mongo.LockDocument.RENEWED_AT;
import static io.github.mongolock.mongo.LockDocument.REVOKED_BY;
import static io.github.mongolock.mongo.LockDocument.REVOKED_OWNER;
import static io.github.mongolock.mongo.LockDocument.REVOKED_REASON;

import com.mongodb.client.MongoCollection;
import io.github.mongolock.core.LeaseClaim;
import io.github.mongolock.core.RenewalOutcome;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.bson.Document;

/**
 * One renewal round of {@link MongoLockStore}: every claimed lease extended in one update (its {@code beat}
 * moved, which is what waiters watch), and, only when fewer documents matched than were claimed, one read
 * telling which claims still hold, and why a claim an operator ended was lost. Its own class because it is the one write that touches many locks at
 * once, and its answer must name exactly the leases that were extended. Thread-safe.
 */
final class BatchRenewal {

    private final MongoCollection<Document> locks;
    private final StoreCalls calls;

    BatchRenewal(MongoCollection<Document> locks, StoreCalls calls) {
        this.locks = locks;
        this.calls = calls;
    }

    /** @return the names of the claims that still hold, their leases extended, and the operator's reason for a lost one */
    RenewalOutcome renew(Collection<LeaseClaim> claims) {
        if (claims.isEmpty()) {
            return RenewalOutcome.confirmedOnly(Set.of());
        }
        List<String> names = new ArrayList<>(claims.size());
        Set<String> owners = new LinkedHashSet<>();
        List<String> leaseIds = new ArrayList<>(claims.size());
        Map<String, LeaseClaim> byName = new HashMap<>(claims.size() * 2);
        for (LeaseClaim claim : claims) {
            names.add(claim.name());
            owners.add(claim.owner());
            leaseIds.add(claim.leaseId());
            byName.put(claim.name(), claim);
        }
        String what = claims.size() + " lock(s) including";
        // Lease ids are unique per acquisition, so each claim matches at most its own document:
        // the matched count is exact, and no other acquisition's lease (not even an orphan) is extended.
        long matched = calls.call("renew", what + " " + names.get(0), () -> locks.updateMany(
                and(in(ID, names), in(OWNER, owners), in(LEASE_ID, leaseIds)),
                combine(inc(BEAT, 1L), currentDate(RENEWED_AT)))).getMatchedCount();
        if (matched == claims.size()) {
            return RenewalOutcome.confirmedOnly(byName.keySet());
        }
        // Some were not ours any more: one read tells which claims still hold, and which an operator ended.
        Set<String> confirmed = new HashSet<>();
        Map<String, String> lossReasons = new HashMap<>();
        calls.call("check", what + " " + names.get(0), () -> locks.find(in(ID, names))
                .projection(include(OWNER, LEASE_ID, REVOKED_OWNER, REVOKED_BY, REVOKED_REASON)).into(new ArrayList<>()))
                .forEach(document -> {
                    LeaseClaim claim = byName.get(document.getString(ID));
                    if (claim == null) {
                        return;
                    }
                    if (claim.owner().equals(document.getString(OWNER)) && claim.leaseId().equals(document.getString(LEASE_ID))) {
                        confirmed.add(claim.name());
                    } else if (claim.owner().equals(document.getString(REVOKED_OWNER))) {
                        // Owners are unique per acquisition, so the recorded revocation is this claim's own, even
                        // when the lock has been granted again since (a grant leaves the revocation fields).
                        lossReasons.put(claim.name(), RenewalOutcome.releasedByOperator(
                                String.valueOf(document.get(REVOKED_BY)), String.valueOf(document.get(REVOKED_REASON))));
                    }
                });
        return new RenewalOutcome(confirmed, lossReasons);
    }
}
