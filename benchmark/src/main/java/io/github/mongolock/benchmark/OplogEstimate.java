package io.github.mongolock.benchmark;

import java.nio.ByteBuffer;
import java.util.UUID;
import org.bson.BsonBinary;
import org.bson.BsonBinaryWriter;
import org.bson.BsonBoolean;
import org.bson.BsonDateTime;
import org.bson.BsonDocument;
import org.bson.BsonInt32;
import org.bson.BsonInt64;
import org.bson.BsonString;
import org.bson.BsonTimestamp;
import org.bson.BsonValue;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * An estimate of the BSON size of the oplog entry MongoDB 6.0-8.0 writes for one document changed by an update
 * (one entry per document, also for a multi-document update), built field by field in the format those versions
 * write and encoded:
 *
 * <pre>{@code
 * { lsid: {id: UUID, uid: BinData(32 bytes)}, txnNumber: NumberLong,     // retryable writes only
 *   op: "u", ns: "<db>.<collection>", ui: UUID,
 *   o:  {$v: 2, diff: {u: {<field>: <new value>, ...}, d: {<field>: false}}},   // the "$v: 2" delta
 *   o2: {_id: <the document's _id>},
 *   needsRetryImage: "postImage", stmtId: 0,                           // retryable findAndModify only
 *   ts: Timestamp, t: NumberLong, v: NumberLong(2), wall: ISODate,
 *   prevOpTime: {ts: Timestamp, t: NumberLong} }                        // retryable writes only
 * }</pre>
 *
 * The delta names every field the update sets ({@code $set}, {@code $inc}, {@code $currentDate}, and the rest as
 * if set) with a value of its type, and every {@code $unset} field. A multi-document update is never a retryable
 * write, so its entries carry no session fields; on a replica set the driver makes a single-document update or
 * findAndModify retryable by default ({@code retryWrites=true}), and this estimate assumes it did (the stand-in
 * has no sessions, so the driver sends it none). The pre- or post-image of a retryable findAndModify
 * goes to {@code config.image_collection}, which is not replicated through the oplog. Not measured: the benchmark
 * cannot read a real server's oplog here (the stand-in's own oplog is measured separately, in its own format).
 */
final class OplogEstimate {

    private static final BsonBinary UUID_VALUE = new BsonBinary(UUID.randomUUID());

    private OplogEstimate() {
    }

    /**
     * Bytes of one entry for a document of {@code _id} {@code id} changed by {@code update}; -1 when the update is
     * not in operator form (a replacement or a pipeline, which mongolock never sends for a renewal).
     *
     * @param retryable     a retryable write on a replica set (the driver's default for single-document writes)
     * @param findAndModify the entry of a findAndModify (a retryable one records that its image is kept aside)
     */
    static long updateEntryBytes(String namespace, BsonValue id, BsonDocument update, boolean retryable,
                                 boolean findAndModify) {
        if (update.isEmpty() || !update.getFirstKey().startsWith("$")) {
            return -1;
        }
        BsonDocument changed = new BsonDocument();
        BsonDocument removed = new BsonDocument();
        for (String operator : update.keySet()) {
            if (!(update.get(operator) instanceof BsonDocument fields)) {
                continue;
            }
            for (String field : fields.keySet()) {
                switch (operator) {
                    case "$unset" -> removed.put(field, BsonBoolean.FALSE);
                    case "$currentDate" -> changed.put(field, new BsonDateTime(0));
                    case "$inc" -> changed.put(field, fields.get(field).isInt32() ? new BsonInt32(0) : new BsonInt64(0));
                    case "$setOnInsert" -> {
                        // applied only when the update inserts: an insert entry, not estimated here
                    }
                    default -> changed.put(field, fields.get(field));
                }
            }
        }
        BsonDocument diff = new BsonDocument();
        if (!changed.isEmpty()) {
            diff.put("u", changed);
        }
        if (!removed.isEmpty()) {
            diff.put("d", removed);
        }
        BsonDocument entry = new BsonDocument();
        if (retryable) {
            entry.put("lsid", new BsonDocument("id", UUID_VALUE).append("uid", new BsonBinary(new byte[32])));
            entry.put("txnNumber", new BsonInt64(1));
        }
        entry.put("op", new BsonString("u"));
        entry.put("ns", new BsonString(namespace));
        entry.put("ui", UUID_VALUE);
        entry.put("o", new BsonDocument("$v", new BsonInt32(2)).append("diff", diff));
        entry.put("o2", new BsonDocument("_id", id == null ? new BsonString("") : id));
        if (retryable && findAndModify) {
            entry.put("needsRetryImage", new BsonString("postImage"));
            entry.put("stmtId", new BsonInt32(0));
        }
        entry.put("ts", new BsonTimestamp(1_795_000_000, 1));
        entry.put("t", new BsonInt64(1));
        entry.put("v", new BsonInt64(2));
        entry.put("wall", new BsonDateTime(0));
        if (retryable) {
            entry.put("prevOpTime", new BsonDocument("ts", new BsonTimestamp(0, 0)).append("t", new BsonInt64(-1)));
        }
        return bsonSize(entry);
    }

    static long bsonSize(BsonDocument document) {
        BasicOutputBuffer buffer = new BasicOutputBuffer();
        new BsonDocumentCodec().encode(new BsonBinaryWriter(buffer), document, EncoderContext.builder().build());
        return ByteBuffer.wrap(buffer.toByteArray()).remaining();
    }
}
