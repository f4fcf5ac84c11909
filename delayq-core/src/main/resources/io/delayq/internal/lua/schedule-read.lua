-- schedule-read: one schedule's definition and state, with this server's time, so that Java
-- computes its occurrences from the clock that decides when they are due.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the partition's schedules hash.
-- ARGV[8] schedule name
--
-- Returns {nowMicros, definition or false, state or false}.
-- @include keys
-- @include clock
local SCHEDULES = KEYS[12]
local name = ARGV[FIRST_ARG]
local got = redis.call('HMGET', SCHEDULES, 'd:' .. name, 's:' .. name)
return {redis_now_us(), got[1], got[2]}
