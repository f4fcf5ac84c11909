-- history-add: adds one batch of a client's counts of one minute to a minute bucket and to the hour
-- bucket that holds it (hashes of one hash tag), and sets their time to live. A batch is applied at
-- most once: a resent batch (its first send timed out with an unknown outcome) finds its number in
-- the minute bucket's marker field and adds nothing again.
--
-- KEYS[1] the minute hash   KEYS[2] the hour hash
-- KEYS[3] optional: the queue's deletion mark, in the same slot; while it exists (a while after the
--         queue was deleted) nothing is written, so a deleted queue's history never comes back
-- ARGV[1] unused (the caller's slot for the server time, which this script does not read)
-- ARGV[2] minute bucket time to live, ms   ARGV[3] hour bucket time to live, ms
-- ARGV[4] the writer's marker field (readers ignore it)   ARGV[5] the batch number, increasing per writer
-- ARGV[6..] field, increment, field, increment, ... (fields: s d a r x, l0..lN)
--
-- Returns {status, refused}: status 1 applied, 0 applied before (nothing added), -1 the queue was
-- deleted (nothing written); refused, the increments left out because their counter in a bucket is not
-- an integer or would overflow (another program's field): that counter is left alone, the rest added.
-- Never fails after a write: every check comes first.
if KEYS[3] and redis.call('EXISTS', KEYS[3]) == 1 then
  return {-1, 0}
end
-- why: these are delayq's own key names; a key of another type under one is replaced, not left to
-- fail every flush of its minute or hour
local foreign = {}
for k = 1, 2 do
  local t = redis.call('TYPE', KEYS[k])['ok']
  foreign[k] = t ~= 'hash' and t ~= 'none'
end
if not foreign[1] then
  local last = tonumber(redis.call('HGET', KEYS[1], ARGV[4]))
  if last and last >= tonumber(ARGV[5]) then
    return {0, 0}
  end
end
for k = 1, 2 do
  if foreign[k] then
    redis.call('DEL', KEYS[k])
  end
end
redis.call('HSET', KEYS[1], ARGV[4], ARGV[5])
local refused = 0
for i = 6, #ARGV, 2 do
  for k = 1, 2 do
    -- why: HINCRBY refuses a counter that is not an integer or would overflow without changing it;
    -- that one increment is dropped rather than failing the batch after the other writes
    local r = redis.pcall('HINCRBY', KEYS[k], ARGV[i], ARGV[i + 1])
    if type(r) == 'table' then
      refused = refused + 1
    end
  end
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return {1, refused}
