-- schedule-tend: moves a schedule's sequence on where a claim could not: names the occurrence
-- after the pending one (which Java computed ahead of time, so the claim that hands the pending
-- one out can create it), or, when the sequence fell behind (missed occurrences the misfire policy
-- does not run) or stopped (no pending occurrence), puts a new pending occurrence in place of the
-- old one. Applies only when the state is still the one Java read.
--
-- KEYS and ARGV[1..7]: see _keys.lua. KEYS[12] the partition's schedules hash.
-- ARGV[8] name   ARGV[9] the state read: '<ver>:<pending id>'   ARGV[10] 'n' or 'j'
-- 'n': ARGV[11] id of the occurrence after the pending one   ARGV[12] its due ms
-- 'j': ARGV[11] new pending id ('' when the schedule has ended)   ARGV[12] its due ms
--      ARGV[13] its job record   ARGV[14] id of the occurrence after it ('' for none)
--      ARGV[15] its due ms   ARGV[16] occurrences passed over (counted as skipped)
--
-- Returns 1 when applied, 0 when the state had moved on (someone else tended it).
-- @include keys
-- @include wake
-- @include schedules
local SCHEDULES = KEYS[12]
local a = FIRST_ARG
local name, expected, mode = ARGV[a], ARGV[a + 1], ARGV[a + 2]
local text = redis.call('HGET', SCHEDULES, 's:' .. name)
local s = text and read_state(text)
if not s or (s[1] .. ':' .. s[2]) ~= expected or s[16] == '1' then
  return 0
end
if mode == 'n' then
  if s[2] == '' or s[4] ~= '' then
    return 0
  end
  s[4], s[5] = ARGV[a + 3], ARGV[a + 4]
  write_state(SCHEDULES, name, s)
  return 1
end

local pend, pend_due, record = ARGV[a + 3], ARGV[a + 4], ARGV[a + 5]
local placed = replace_pending(SCHEDULES, name, s[2], pend, pend_due, record)
s[2], s[3] = pend, pend == '' and '' or pend_due
s[4] = ARGV[a + 6]
s[5] = s[4] == '' and '' or ARGV[a + 7]
s[14] = tostring((tonumber(s[14]) or 0) + (tonumber(ARGV[a + 8]) or 0))
write_state(SCHEDULES, name, s)
wake_if_placed_at_head(placed)
return 1
