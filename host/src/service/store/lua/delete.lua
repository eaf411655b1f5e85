-- delete: remove a job and every index entry that names it; returns its fields (empty when
-- it did not exist). A queue entry left behind is dropped by `claim`.
-- KEYS[1] job hash, KEYS[2] leases, KEYS[3] hooks, KEYS[4] finished, KEYS[5] the job's small
-- upload
-- ARGV[1] job id, ARGV[2] prefix of the owners' job indexes (`<prefix>owner:`),
-- ARGV[3] events channel
local fields = redis.call('HGETALL', KEYS[1])
local owner = redis.call('HGET', KEYS[1], 'owner')
redis.call('DEL', KEYS[1], KEYS[5])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('ZREM', KEYS[3], ARGV[1])
redis.call('ZREM', KEYS[4], ARGV[1])
if owner then
  redis.call('ZREM', ARGV[2] .. owner, ARGV[1])
end
if #fields > 0 then
  announce(KEYS[1], ARGV[1])
end
return fields
