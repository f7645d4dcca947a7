package io.github.mongolock.benchmark;

import static com.mongodb.client.model.Filters.and;
import static com.mongodb.client.model.Filters.eq;
import static com.mongodb.client.model.Filters.exists;
import static com.mongodb.client.model.Updates.combine;
import static com.mongodb.client.model.Updates.currentDate;
import static com.mongodb.client.model.Updates.inc;
import static com.mongodb.client.model.Updates.pullAll;
import static com.mongodb.client.model.Updates.set;
import static com.mongodb.client.model.Updates.unset;

import com.mongodb.ConnectionString;
import com.mongodb.MongoClientSettings;
import com.mongodb.ReadConcern;
import com.mongodb.ReadPreference;
import com.mongodb.WriteConcern;
import com.mongodb.client.MongoClient;
import com.mongodb.client.MongoClients;
import com.mongodb.client.MongoCollection;
import com.mongodb.client.MongoDatabase;
import com.mongodb.client.model.FindOneAndUpdateOptions;
import com.mongodb.client.model.ReturnDocument;
import io.github.mongolock.LockSession;
import io.github.mongolock.PermitHold;
import io.github.mongolock.Permits;
import io.github.mongolock.MongoLockManager;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import net.javacrumbs.shedlock.core.ClockProvider;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.SimpleLock;
import net.javacrumbs.shedlock.provider.mongo.MongoLockProvider;
import org.bson.Document;
import org.bson.conversions.Bson;
import org.bson.types.ObjectId;

/**
 * Cases 1 to 3, on one client in the benchmark's JVM, one thread, one document each (each case on
 * its own collection, so none pays for another's documents where the server scans). Cycles of
 * the cases alternate one by one, so machine noise hits them alike. Round trips are counted on the
 * measuring thread only.
 */
final class SingleClientCases {

    /** One lock cycle, split so round trips can be counted per half. */
    interface Cycle {
        Object acquire();

        void release(Object held);
    }

    /** @param shortLabel the case in a chart's row, where the table's label would not fit */
    record Case(String key, String label, String shortLabel, Cycle cycle) {
    }

    /**
     * Per measured round: the median cycle time, and the medians of its two parts, the time inside
     * the driver's commands (send to reply, as the driver's command events report it) and the rest
     * (the library's and the benchmark's own work on the client).
     */
    record Result(Case lockCase, List<Double> microsPerOp, List<Double> commandMicros, List<Double> clientMicros,
                  Map<String, Long> acquireCommands, Map<String, Long> releaseCommands) {
    }

    static final String LIMIT = "limit";
    static final String SHEDLOCK = "shedlock";
    /** One permit of a semaphore, the same manager as the default lock case: issue 32's "same round trips as a lock". */
    static final String PERMITS = "permits";
    /** The order of the cases within each pass is shuffled from this seed (see {@link #run}). */
    private static final long SHUFFLE_SEED = 0x6d6f6e676fL;

    private final MongoClient client;
    private final CommandCounter counter;
    private final List<MongoLockManager> managers = new ArrayList<>();
    private final List<Case> cases = new ArrayList<>();
    private LockSession reentrantOuter;

    SingleClientCases(String uri, String database) {
        Thread measuring = Thread.currentThread();
        this.counter = new CommandCounter(thread -> thread == measuring);
        this.client = MongoClients.create(MongoClientSettings.builder().applyConnectionString(new ConnectionString(uri))
                .addCommandListener(counter).build());
        MongoDatabase db = client.getDatabase(database);

        // 1. The limit: the least a lock cycle can send, with the same write concern as the others.
        MongoCollection<Document> raw = db.getCollection("limit").withWriteConcern(WriteConcern.MAJORITY);
        String rawOwner = "limit-owner";
        Bson rawFilter = and(eq("_id", "limit"), eq("holds", 0));
        Bson rawTake = combine(set("owner", rawOwner), set("holds", 1), inc("version", 1L), currentDate("renewedAt"));
        Bson rawOwned = and(eq("_id", "limit"), eq("owner", rawOwner));
        Bson rawFree = combine(set("owner", null), set("holds", 0), inc("version", 1L));
        FindOneAndUpdateOptions upsert = new FindOneAndUpdateOptions().upsert(true).returnDocument(ReturnDocument.BEFORE);
        cases.add(new Case(LIMIT, "limit: raw driver findOneAndUpdate + updateOne", "limit (raw driver)", new Cycle() {
            @Override
            public Object acquire() {
                return raw.findOneAndUpdate(rawFilter, rawTake, upsert);
            }

            @Override
            public void release(Object held) {
                if (raw.updateOne(rawOwned, rawFree).getMatchedCount() != 1) {
                    throw new IllegalStateException("the limit's release matched nothing");
                }
            }
        }));

        // 1b. Attribution: the raw driver sending mongolock's exact commands (same filters, same update
        // documents, a new lease id each time, the same concerns and per-call timeout, which adds maxTimeMS).
        // Its distance to the limit is the cost of the richer commands; mongolock's distance to it is the
        // library's own work on the client. Written with Filters/Updates, as a driver user would.
        MongoCollection<Document> same = db.getCollection("limit_mongolock_shape").withWriteConcern(WriteConcern.MAJORITY)
                .withReadPreference(ReadPreference.primary()).withReadConcern(ReadConcern.MAJORITY)
                .withTimeout(10_000, TimeUnit.MILLISECONDS);
        String sameManager = "host-1234-abcd:0123456789abcdef0123456789abcdef";
        String sameOwner = sameManager + ":1";
        long[] version = {0};
        cases.add(new Case("same-commands", "raw driver sending mongolock's exact commands",
                "raw driver, mongolock's commands", new Cycle() {
            @Override
            public Object acquire() {
                Bson take = combine(set("owner", sameOwner), set("holds", 1),
                        set("leaseId", "b" + new ObjectId().toHexString()), set("leaseMs", 30_000L), inc("version", 1L),
                        inc("token", 1L), inc("beat", 1L), currentDate("acquiredAt"), currentDate("renewedAt"),
                        unset("releasedAt"), unset("freedAt"), pullAll("queue", List.of(sameManager)));
                Document before = same.findOneAndUpdate(new Document("_id", "same").append("holds", 0)
                        .append("$or", List.of(exists("queue.0", false), eq("queue.0", sameManager))), take, upsert);
                version[0] = before == null ? 1 : ((Number) before.get("version")).longValue() + 1;
                return before;
            }

            @Override
            public void release(Object held) {
                if (same.updateOne(and(eq("_id", "same"), eq("owner", sameOwner), eq("version", version[0])),
                        combine(set("owner", null), set("holds", 0), inc("version", 1L), currentDate("freedAt")))
                        .getMatchedCount() != 1) {
                    throw new IllegalStateException("the release matched nothing");
                }
            }
        }));

        // 2. ShedLock's provider as documented: collection "shedLock", majority write and read concern.
        MongoLockProvider shedLock = new MongoLockProvider(db);
        cases.add(new Case(SHEDLOCK, "ShedLock 7.9.0 lock + unlock", "ShedLock 7.9.0", new Cycle() {
            @Override
            public Object acquire() {
                return shedLock.lock(new LockConfiguration(ClockProvider.now(), "shedlock", Duration.ofSeconds(30),
                        Duration.ZERO)).orElseThrow(() -> new IllegalStateException("ShedLock refused a free lock"));
            }

            @Override
            public void release(Object held) {
                ((SimpleLock) held).unlock();
            }
        }));

        // 3. mongolock, in each wake-up mode this build offers, and re-entry under an outer hold.
        for (WakeUpMode mode : WakeUpMode.values()) {
            MongoLockManager manager = mode.apply(MongoLockManager.builder().client(client).database(database)
                    .collection("single_" + mode.name().toLowerCase(java.util.Locale.ROOT))).build();
            managers.add(manager);
            cases.add(new Case("mongolock-" + mode.name(), "mongolock acquire + close (" + mode.label + " wake-up)",
                    "mongolock, " + mode.label, sessionCycle(manager, "uncontended")));
        }
        MongoLockManager reentrant = managers.get(0); // the default configuration (push wake-up on)
        reentrantOuter = reentrant.acquire("reentrant");
        cases.add(new Case("reentrant", "mongolock re-entrant acquire + close (outer hold kept)",
                "mongolock, re-entrant", sessionCycle(reentrant, "reentrant")));
        Permits semaphore = reentrant.permits("uncontended-permits", 3);
        cases.add(new Case(PERMITS, "mongolock permits(name, 3) acquire + close (one permit)", "mongolock, one permit",
                new Cycle() {
                    @Override
                    public Object acquire() {
                        return semaphore.acquire();
                    }

                    @Override
                    public void release(Object held) {
                        ((PermitHold) held).close();
                    }
                }));
    }

    private static Cycle sessionCycle(MongoLockManager manager, String name) {
        return new Cycle() {
            @Override
            public Object acquire() {
                return manager.acquire(name);
            }

            @Override
            public void release(Object held) {
                ((LockSession) held).close();
            }
        };
    }

    /**
     * Each round runs {@code opsPerRound} cycles of every case, interleaved cycle by cycle, and keeps the
     * median cycle time per case: a preemption or GC pause on this shared machine spoils one cycle, not a
     * whole case's batch. Each pass over the cases takes them in a new order (shuffled from a fixed seed, so
     * every run interleaves alike): a cycle right after another case's pays for the switch of code and
     * data, and a fixed sequence gave each case the same predecessor every time (the first mongolock row,
     * always after ShedLock's, came out 0.10x the limit slower than the second, whichever wake-up it had).
     */
    List<Result> run(int warmUpRounds, int rounds, int opsPerRound) {
        Map<Case, List<Double>> times = new LinkedHashMap<>();
        Map<Case, List<Double>> inCommands = new LinkedHashMap<>();
        Map<Case, List<Double>> onClient = new LinkedHashMap<>();
        cases.forEach(c -> {
            times.put(c, new ArrayList<>());
            inCommands.put(c, new ArrayList<>());
            onClient.put(c, new ArrayList<>());
        });
        Map<Case, Map<String, Long>> acquireCommands = new LinkedHashMap<>();
        Map<Case, Map<String, Long>> releaseCommands = new LinkedHashMap<>();
        int n = cases.size();
        Random shuffler = new Random(SHUFFLE_SEED);
        List<Integer> order = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            order.add(i);
        }
        for (int round = 0; round < warmUpRounds + rounds; round++) {
            double[][] cycles = new double[n][opsPerRound];
            double[][] commandParts = new double[n][opsPerRound];
            for (int op = 0; op < opsPerRound; op++) {
                Collections.shuffle(order, shuffler);
                for (int index : order) {
                    Cycle cycle = cases.get(index).cycle();
                    long inDriver = counter.elapsedTotalNanos();
                    long start = System.nanoTime();
                    cycle.release(cycle.acquire());
                    cycles[index][op] = (System.nanoTime() - start) / 1_000.0;
                    commandParts[index][op] = (counter.elapsedTotalNanos() - inDriver) / 1_000.0;
                }
            }
            if (round >= warmUpRounds) {
                for (int i = 0; i < n; i++) {
                    List<Double> sample = new ArrayList<>(opsPerRound);
                    List<Double> commandSample = new ArrayList<>(opsPerRound);
                    List<Double> clientSample = new ArrayList<>(opsPerRound);
                    for (int op = 0; op < opsPerRound; op++) {
                        sample.add(cycles[i][op]);
                        commandSample.add(commandParts[i][op]);
                        clientSample.add(cycles[i][op] - commandParts[i][op]);
                    }
                    times.get(cases.get(i)).add(new Stats(sample).median());
                    inCommands.get(cases.get(i)).add(new Stats(commandSample).median());
                    onClient.get(cases.get(i)).add(new Stats(clientSample).median());
                }
            }
            if (round == warmUpRounds - 1 || warmUpRounds == 0 && round == 0) {
                // Once warm: the round trips of one cycle of each case, per half.
                for (Case audited : cases) {
                    counter.reset();
                    Object held = audited.cycle().acquire();
                    acquireCommands.put(audited, counter.counts());
                    counter.reset();
                    audited.cycle().release(held);
                    releaseCommands.put(audited, counter.counts());
                }
            }
            System.out.printf("  single-client round %d/%d done%n", round + 1, warmUpRounds + rounds);
        }
        List<Result> results = new ArrayList<>();
        for (Case c : cases) {
            results.add(new Result(c, times.get(c), inCommands.get(c), onClient.get(c), acquireCommands.get(c),
                    releaseCommands.get(c)));
        }
        return results;
    }

    void close() {
        if (reentrantOuter != null) {
            reentrantOuter.close();
        }
        managers.forEach(MongoLockManager::close);
        client.close();
    }
}
