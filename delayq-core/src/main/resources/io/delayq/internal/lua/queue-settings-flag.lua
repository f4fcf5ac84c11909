-- queue-settings-flag: sets one field of a queue's settings hash only while the queue exists (the
-- hash holds its partition count), so that a pause or resume racing the queue's delete cannot
-- bring the hash back after the delete removed it.
--
-- KEYS[1] the queue's settings hash
-- ARGV[1] field   ARGV[2] value
--
-- Returns 1 set, 0 the queue does not exist (nothing written).
if redis.call('HEXISTS', KEYS[1], 'partitions') == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
