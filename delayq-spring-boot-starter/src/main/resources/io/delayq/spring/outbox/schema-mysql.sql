-- delayq transactional outbox: one row per delayq write (schedule, cancel, reschedule) made inside a
-- transaction, written by that transaction and deleted once the write is applied to Redis. See
-- docs/SPRING-TRANSACTIONS.md. The starter runs this script itself when
-- delayq.outbox.initialize-schema says so (embedded databases by default), with delayq_outbox
-- replaced by delayq.outbox.table-name; run it by hand otherwise. Rerunning it changes nothing.
--
-- seq             order of the writes; a job's writes are applied in this order
-- op              S schedule, C cancel, R reschedule
-- queue_name      the queue (at most 128 characters)
-- job_id          the job's id (at most 256 UTF-8 bytes), compared case-sensitively
-- id_generated    whether the id was generated at the call (no other write can name it)
-- payload         the payload of a schedule (null otherwise)
-- payload_json    whether the payload is JSON text
-- due_ms          when the job is due (schedule, reschedule), epoch milliseconds
-- max_attempts    attempts of a scheduled job
-- keep_existing   whether a schedule is applied with DuplicatePolicy.KEEP (else REPLACE)
-- created_ms      when the row was written, epoch milliseconds
-- relay_after_ms  when a relay may take the row: the grace period after writing, later when put off
-- relay_attempts  failed attempts at applying the row
-- For MySQL 8 and MariaDB 10.6 or later (older ones lack SKIP LOCKED; the relay then claims rows
-- by updating them). utf8mb4_bin: ids are compared case-sensitively, as Redis compares them.
CREATE TABLE IF NOT EXISTS delayq_outbox (
  seq BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY,
  op CHAR(1) NOT NULL,
  queue_name VARCHAR(128) NOT NULL,
  job_id VARCHAR(256) NOT NULL,
  id_generated BOOLEAN NOT NULL,
  payload LONGBLOB,
  payload_json BOOLEAN NOT NULL,
  due_ms BIGINT NOT NULL,
  max_attempts INT NOT NULL,
  keep_existing BOOLEAN NOT NULL,
  created_ms BIGINT NOT NULL,
  relay_after_ms BIGINT NOT NULL,
  relay_attempts INT NOT NULL,
  KEY delayq_outbox_relay (relay_after_ms),
  KEY delayq_outbox_job (queue_name, job_id)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin;
