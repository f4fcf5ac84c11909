package io.delayq;

import io.delayq.SortedSetAdoption.ScoreUnit;

/**
 * What moving a sorted set's members into delayq did: the answer of {@link JobQueue#importSortedSet},
 * and the running totals in a {@link SortedSetBridge.Status}.
 *
 * @param source the sorted set's key
 * @param queue the delayq queue the members went to
 * @param unit the unit the scores were read in ({@link ScoreUnit#SECONDS} or {@link
 *     ScoreUnit#MILLISECONDS}), detected or as set; {@code null} while {@link ScoreUnit#DETECT} has
 *     seen no score that decides it
 * @param moved members that became new jobs (and left the source)
 * @param merged members that left the source into a job already scheduled with the same id, which
 *     stayed as it was
 * @param takenByOthers members another consumer of the source removed between delayq's read and its
 *     move: theirs, not delayq's
 * @param hashedIds moved or merged members whose id is the member hash because the JSON id field was
 *     missing or unusable
 * @param heldBack members left in the source on the last pass because a job with their id is running
 *     or dead; they are moved once it is gone
 * @param rejected members left in the source on the last pass because delayq cannot hold them: over
 *     the client's {@code maxPayloadBytes}, or due after 9999-12-31
 * @param firstRejection why the first of those was rejected, or {@code null}
 * @param remaining members in the source after the last pass (the future ones in {@link
 *     SortedSetAdoption.Mode#DUE} mode, those held back or rejected, any written since)
 * @since 0.3.0
 */
public record AdoptionReport(
    String source,
    String queue,
    ScoreUnit unit,
    long moved,
    long merged,
    long takenByOthers,
    long hashedIds,
    long heldBack,
    long rejected,
    String firstRejection,
    long remaining) {}
