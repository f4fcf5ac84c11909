-- schedule-set: stores a schedule's definition and replaces its pending occurrence, in one step:
-- the old pending job goes (one a worker holds is not pending and stays), the new one comes. Java
-- computed the new occurrences from the state it read; the step applies only when the state is
-- still the one read (same version, same pending job), so two racing updates, or an update racing
-- a claim, never both apply: the loser reads again and recomputes.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the partition's schedules hash.
-- ARGV[8] name   ARGV[9] the state read: '' for no schedule, else '<ver>:<pending id>'
-- ARGV[10] definition   ARGV[11] new pending id ('' for none: paused, or past its end)
-- ARGV[12] its due ms   ARGV[13] its job record   ARGV[14] id of the occurrence after it ('' for none)
-- ARGV[15] its due ms   ARGV[16] grace ms   ARGV[17] misfire 's'/'o'/'n'   ARGV[18] max runs
-- ARGV[19] overlap 'a'/'s'   ARGV[20] interval anchor ms (0 for cron)   ARGV[21] paused '1'/'0'
--
-- Returns {1, new version} when applied, {0, '<ver>:<pending id>'} (the state found) when not, and
-- {2, ...} with nothing written when the new pending id is a job that is not waiting (held or
-- dead): the caller computes the occurrence after it.
-- @include keys
-- @include wake
-- @include schedules
local SCHEDULES = KEYS[12]
local a = FIRST_ARG
local name, expected, definition = ARGV[a], ARGV[a + 1], ARGV[a + 2]
local pend, pend_due, record, next_id, next_due = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5], ARGV[a + 6], ARGV[a + 7]

local text = redis.call('HGET', SCHEDULES, 's:' .. name)
local s = text and read_state(text)
local found = s and (s[1] .. ':' .. s[2]) or ''
if found ~= expected then
  return {0, found}
end
-- why: checked before any write. That occurrence's job exists and is not waiting (a worker holds
-- it, or it is dead): it must not be created twice, nor become the pending one
if pend ~= '' and not (s and s[2] == pend) and redis.call('HEXISTS', JOBS, pend) == 1
    and not redis.call('ZSCORE', SCHEDULED, pend) then
  return {2, found}
end

local placed = replace_pending(SCHEDULES, name, s and s[2] or '', pend, pend_due, record)

local version = (s and tonumber(s[1]) or 0) + 1
local state = {
  tostring(version), pend, pend == '' and '' or pend_due, next_id, next_id == '' and '' or next_due,
  s and s[6] or '', s and s[7] or '', '0',
  ARGV[a + 8], ARGV[a + 9], ARGV[a + 10], ARGV[a + 11],
  s and s[13] or '0', s and s[14] or '0', ARGV[a + 12], ARGV[a + 13]}
write_state(SCHEDULES, name, state)
redis.call('HSET', SCHEDULES, 'd:' .. name, definition)
wake_if_placed_at_head(placed)
return {1, version}
