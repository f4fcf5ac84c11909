-- Shared prologue: the loader expands it where a script includes "keys". Every partition script
-- gets the same KEYS and the same first ARGV, so that the Java side builds them in one place.
--
-- KEYS[1] scheduled zset (id -> due ms)       KEYS[2] active zset (id -> lease: deadlineMs * 1024 + attempt)
-- KEYS[3] jobs hash (id -> record)            KEYS[4] attempts hash (id -> attempts used, while not held)
-- KEYS[5] errors hash (id -> last failure)    KEYS[6] dead zset (id -> burial ms)
-- KEYS[7] paused flag                         KEYS[8] leases hash (id -> claim number of its delivery;
--                                              field '' -> the last claim number, see _lease.lua)
-- KEYS[9], KEYS[10] finished-id sets (two generations)
-- KEYS[11] hash of the generations' start times (fields 'a' and 'b', epoch ms)
--
-- ARGV[1] "now" in epoch microseconds read by the caller from this server's TIME, or '' to read
--         TIME here (servers that refuse TIME inside scripts get the first)
-- ARGV[2] wake channel   ARGV[3] partition number
-- ARGV[4] dead-letter cap (count)   ARGV[5] dead-letter retention ms
-- ARGV[6] idempotency window ms (0: off)   ARGV[7] most finished ids one generation holds
-- The script's own arguments start at ARGV[8].
local SCHEDULED, ACTIVE, JOBS, ATTEMPTS, ERRORS, DEAD, PAUSED = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local LEASES, DONE_A, DONE_B, DONE_GENS = KEYS[8], KEYS[9], KEYS[10], KEYS[11]
local WAKE_CHANNEL, PARTITION = ARGV[2], ARGV[3]
local DEAD_CAP, DEAD_AGE_MS = tonumber(ARGV[4]), tonumber(ARGV[5])
local DONE_WINDOW_MS, DONE_CAP = tonumber(ARGV[6]), tonumber(ARGV[7])
local FIRST_ARG = 8
