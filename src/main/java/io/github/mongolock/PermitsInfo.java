package io.github.mongolock;

import java.util.List;
import java.util.Objects;

/**
 * A snapshot of a semaphore as stored ({@link Permits#inspect()}): its limit, the permits in use and who holds
 * them. Immutable; by the time it is read the semaphore may have moved on.
 *
 * @param name         the semaphore's name
 * @param limit        how many permits may be held at once
 * @param used         the permits held now (the sum of the holders' permits)
 * @param fencingToken the token of the last grant, by any manager
 * @param holders      each holding acquisition, in grant order, by any manager
 */
public record PermitsInfo(String name, int limit, int used, long fencingToken, List<Holder> holders) {

    public PermitsInfo {
        Objects.requireNonNull(name, "name");
        holders = List.copyOf(holders);
    }

    /** Permits free now. */
    public int free() {
        return limit - used;
    }

    /**
     * One holder's permits.
     *
     * @param owner   the holding acquisition, as {@link PermitHold#owner()} gives it
     * @param permits how many permits it holds
     */
    public record Holder(String owner, int permits) {
        public Holder {
            Objects.requireNonNull(owner, "owner");
        }
    }
}
