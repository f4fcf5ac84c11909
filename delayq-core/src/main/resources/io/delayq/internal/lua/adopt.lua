-- adopt: moves members of another program's sorted-set delay queue (score = due time, member =
-- payload) into jobs of this queue. A member becomes a job only when this script's own ZREM removed
-- it: a consumer of the old set that removed it first keeps it, so every member goes to exactly one
-- side, as between two consumers of the old set. One call covers several partitions, so it is only
-- valid where every key is in one slot (a single Redis; the Java side checks).
--
-- KEYS: the 11 keys of each partition the call touches, in the order of _keys.lua, one partition
-- after the other; then the source set, last.
-- ARGV[1..7]: see _keys.lua (ARGV[3], the partition, is given per group below instead).
-- ARGV[8] number of partition groups G; ARGV[9 .. 8 + 2G] each group's partition number and job
-- count; then, group after group, six values per job: member, job id, record header, due ms, the
-- member's score as the caller read it, and '1' when the id is the member's hash ('0' otherwise).
--
-- Returns one integer per job, in order: 1 created; 0 merged (a scheduled job already has that id,
-- and keeps its payload, as DuplicatePolicy.KEEP would keep it; if the id is the member's hash, the
-- job takes the member's due time, as ZADD of a member already in the old set sets its score);
-- -1 gone (another consumer removed the member first); -2 held back (a job with that id is running,
-- waiting for a retry, or dead: the member stays in the source, to be moved once that job is gone, since a member added
-- again after the first was taken is a new event in the old queue); -3 changed (a producer wrote a
-- new score since the caller read it: the member stays, and the next read sees the new score).
-- @include keys
-- @include wake
local SOURCE = KEYS[#KEYS]

-- why: every key this call writes is checked before the first write. Redis does not undo the
-- writes of a script that fails halfway, and a member removed from the source whose job could
-- not be written would be lost.
local function check_type(key, want, what)
  local t = redis.call('TYPE', key)['ok']
  if t ~= 'none' and t ~= want then
    error(redis.error_reply('DQ_WRONGTYPE ' .. what .. ' holds a ' .. t .. ', not a ' .. want))
  end
end
check_type(SOURCE, 'zset', 'source')
local groups = tonumber(ARGV[FIRST_ARG])
for g = 1, groups do
  local base = 11 * (g - 1)
  check_type(KEYS[base + 1], 'zset', 'scheduled')
  check_type(KEYS[base + 2], 'zset', 'active')
  check_type(KEYS[base + 3], 'hash', 'jobs')
  check_type(KEYS[base + 4], 'hash', 'attempts')
end

local out = {}
local at = FIRST_ARG + 1 + 2 * groups
for g = 1, groups do
  local base = 11 * (g - 1)
  -- why: the shared helpers read these locals of _keys.lua, so pointing them at the group's
  -- partition makes them work on it
  SCHEDULED, ACTIVE, JOBS, ATTEMPTS = KEYS[base + 1], KEYS[base + 2], KEYS[base + 3], KEYS[base + 4]
  PARTITION = ARGV[FIRST_ARG + 2 * g - 1]
  local count = tonumber(ARGV[FIRST_ARG + 2 * g])
  local placed = {}
  for _ = 1, count do
    local member, id, header, due_ms = ARGV[at], ARGV[at + 1], ARGV[at + 2], ARGV[at + 3]
    local read_score, by_hash = ARGV[at + 4], ARGV[at + 5] == '1'
    at = at + 6
    local result
    local known = redis.call('HEXISTS', JOBS, id) == 1
    local score = redis.call('ZSCORE', SOURCE, member)
    -- why: a scheduled job with attempts used is waiting for a retry: it was taken already, as a
    -- running one was, so this member is a new event that merging would drop
    if known and (not redis.call('ZSCORE', SCHEDULED, id) or redis.call('HEXISTS', ATTEMPTS, id) == 1) then
      result = -2
    elseif not score then
      result = -1
    elseif tonumber(score) ~= tonumber(read_score) then
      -- why: the due time was worked out from the score read; moving the member with it would undo
      -- the producer's newer write
      result = -3
    elseif known then
      redis.call('ZREM', SOURCE, member)
      if by_hash and tonumber(redis.call('ZSCORE', SCHEDULED, id)) ~= tonumber(due_ms) then
        redis.call('ZADD', SCHEDULED, due_ms, id)
        placed[id] = true
      end
      result = 0
    else
      redis.call('ZREM', SOURCE, member)
      redis.call('HSET', JOBS, id, header .. member)
      redis.call('ZADD', SCHEDULED, due_ms, id)
      placed[id] = true
      result = 1
    end
    out[#out + 1] = result
  end
  wake_if_placed_at_head(placed)
end
return out
