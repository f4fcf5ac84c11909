-- history-add: adds one client's counts of one minute to a minute bucket and to the hour bucket
-- that holds it (both hashes of one hash tag), and sets their time to live.
--
-- KEYS[1] the minute hash   KEYS[2] the hour hash
-- ARGV[1] unused (the caller's slot for the server time, which this script does not read)
-- ARGV[2] minute bucket time to live, ms   ARGV[3] hour bucket time to live, ms
-- ARGV[4..] field, increment, field, increment, ... (fields: s d a r x, l0..lN)
--
-- Returns the number of fields added to.
for i = 4, #ARGV, 2 do
  redis.call('HINCRBY', KEYS[1], ARGV[i], ARGV[i + 1])
  redis.call('HINCRBY', KEYS[2], ARGV[i], ARGV[i + 1])
end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[3])
return (#ARGV - 3) / 2
