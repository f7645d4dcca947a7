package io.github.mongolock.testing;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.bson.BsonBinaryWriter;
import org.bson.BsonDocument;
import org.bson.RawBsonDocument;
import org.bson.codecs.BsonDocumentCodec;
import org.bson.codecs.EncoderContext;
import org.bson.io.BasicOutputBuffer;

/**
 * One message of MongoDB's wire protocol, as the bytes that travel, and for {@code OP_MSG} (the driver's format
 * for every command after the handshake) its parts:
 *
 * <pre>
 * header:   int32 messageLength, int32 requestID, int32 responseTo, int32 opCode (2013 = OP_MSG), little-endian
 * OP_MSG:   uint32 flagBits (bit 0 checksumPresent, bit 1 moreToCome, bit 16 exhaustAllowed)
 *           sections: kind 0: one BSON document, the command or the reply
 *                     kind 1: int32 size, cstring identifier, BSON documents ("documents", "updates", "deletes")
 *           [uint32 CRC-32C checksum, when bit 0 is set]
 * </pre>
 *
 * Immutable; every change returns a new message with its length recomputed. A changed {@code OP_MSG} is sent
 * without a checksum (the flag is cleared): a server checks one only where present. Compressed messages
 * ({@code OP_COMPRESSED}) are not parsed: the driver compresses only when told to.
 */
final class WireMessage {

    static final int OP_MSG = 2013;
    private static final int HEADER = 16;
    private static final int CHECKSUM_PRESENT = 1;
    private static final int MORE_TO_COME = 1 << 1;
    /** MongoDB's own limit is 48 MB; anything longer is a framing error, not a message. */
    private static final int MAX_LENGTH = 48 * 1024 * 1024;

    private final byte[] bytes;

    private WireMessage(byte[] bytes) {
        this.bytes = bytes;
    }

    /** The next message on {@code in}, or null at the end of the stream before its first byte. */
    static WireMessage read(InputStream in) throws IOException {
        byte[] head = new byte[4];
        int first = in.read(head, 0, 4);
        if (first < 0) {
            return null;
        }
        readFully(in, head, first, 4 - first);
        int length = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN).getInt();
        if (length < HEADER || length > MAX_LENGTH) {
            throw new IOException("not a MongoDB message: length " + length);
        }
        byte[] bytes = new byte[length];
        System.arraycopy(head, 0, bytes, 0, 4);
        readFully(in, bytes, 4, length - 4);
        return new WireMessage(bytes);
    }

    private static void readFully(InputStream in, byte[] into, int offset, int length) throws IOException {
        int done = 0;
        while (done < length) {
            int read = in.read(into, offset + done, length - done);
            if (read < 0) {
                throw new EOFException("the stream ended inside a message");
            }
            done += read;
        }
    }

    byte[] bytes() {
        return bytes;
    }

    int requestId() {
        return intAt(4);
    }

    int responseTo() {
        return intAt(8);
    }

    int opCode() {
        return intAt(12);
    }

    boolean isOpMsg() {
        return opCode() == OP_MSG;
    }

    /** An OP_MSG the sender expects no answer to (an unacknowledged write), or one of several answers (exhaust). */
    boolean moreToCome() {
        return isOpMsg() && (flags() & MORE_TO_COME) != 0;
    }

    private int flags() {
        return intAt(HEADER);
    }

    /** Section 0 of an OP_MSG: the command, or the reply. */
    BsonDocument body() {
        BsonDocument[] body = new BsonDocument[1];
        forEachSection((kind, offset, length) -> {
            if (kind == 0) {
                body[0] = new RawBsonDocument(bytes, offset, length).decode(new BsonDocumentCodec());
            }
        });
        if (body[0] == null) {
            throw new IllegalStateException("an OP_MSG without a body section");
        }
        return body[0];
    }

    /** The kind-1 sections of an OP_MSG, by identifier: the documents an insert, update or delete carries. */
    Map<String, List<BsonDocument>> sequences() {
        Map<String, List<BsonDocument>> sequences = new LinkedHashMap<>();
        forEachSection((kind, offset, length) -> {
            if (kind != 1) {
                return;
            }
            int end = offset + length;
            int nameEnd = offset + 4;
            while (bytes[nameEnd] != 0) {
                nameEnd++;
            }
            String identifier = new String(bytes, offset + 4, nameEnd - offset - 4, StandardCharsets.UTF_8);
            List<BsonDocument> documents = new ArrayList<>();
            for (int at = nameEnd + 1; at < end; at += intAt(at)) {
                documents.add(new RawBsonDocument(bytes, at, intAt(at)).decode(new BsonDocumentCodec()));
            }
            sequences.put(identifier, documents);
        });
        return sequences;
    }

    /** The same OP_MSG with {@code body} as section 0, the other sections as they were, and no checksum. */
    WireMessage withBody(BsonDocument body) {
        BasicOutputBuffer out = new BasicOutputBuffer();
        out.writeInt32(0); // the length, set below
        out.writeInt32(requestId());
        out.writeInt32(responseTo());
        out.writeInt32(opCode());
        out.writeInt32(flags() & ~CHECKSUM_PRESENT);
        forEachSection((kind, offset, length) -> {
            if (kind == 0) {
                out.writeByte(0);
                new BsonDocumentCodec().encode(new BsonBinaryWriter(out), body, EncoderContext.builder().build());
            } else {
                out.writeByte(kind);
                out.writeBytes(bytes, offset, length);
            }
        });
        byte[] changed = out.toByteArray();
        ByteBuffer.wrap(changed).order(ByteOrder.LITTLE_ENDIAN).putInt(0, changed.length);
        return new WireMessage(changed);
    }

    /** The same message under another request id (a second copy of a request the server must see as new). */
    WireMessage withRequestId(int requestId) {
        return withInt(4, requestId);
    }

    /** The same message answering another request (a copy's answer handed to the request the client sent). */
    WireMessage withResponseTo(int responseTo) {
        return withInt(8, responseTo);
    }

    private WireMessage withInt(int offset, int value) {
        byte[] copy = bytes.clone();
        ByteBuffer.wrap(copy).order(ByteOrder.LITTLE_ENDIAN).putInt(offset, value);
        return new WireMessage(copy);
    }

    private int intAt(int offset) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).getInt(offset);
    }

    /** A section: its kind, and where its payload starts (after the kind byte) and how long it is. */
    private interface SectionVisitor {
        void visit(int kind, int offset, int length);
    }

    private void forEachSection(SectionVisitor visitor) {
        if (!isOpMsg()) {
            throw new IllegalStateException("not an OP_MSG: opCode " + opCode());
        }
        int end = bytes.length - ((flags() & CHECKSUM_PRESENT) != 0 ? 4 : 0);
        int at = HEADER + 4;
        while (at < end) {
            int kind = bytes[at];
            int length = intAt(at + 1); // a document's length, or a sequence's size: both count themselves
            if (kind != 0 && kind != 1 || length < 5 || at + 1 + length > end) {
                throw new IllegalStateException("a malformed OP_MSG section at byte " + at + ": kind " + kind + ", length " + length);
            }
            visitor.visit(kind, at + 1, length);
            at += 1 + length;
        }
    }
}
