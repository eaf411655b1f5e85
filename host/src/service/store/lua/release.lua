-- release: hand a job back to the front of the queue (worker draining); the attempt is not
-- counted against the job.
-- KEYS[1] job hash, KEYS[2] leases zset, KEYS[3] queue list
-- ARGV[1] attempt (fencing token), ARGV[2] now (RFC 3339), ARGV[3] job id, ARGV[4] events channel
if redis.call('HGET', KEYS[1], 'status') ~= 'processing'
  or redis.call('HGET', KEYS[1], 'attempts') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'status', 'pending', 'updated_at', ARGV[2])
redis.call('HINCRBY', KEYS[1], 'attempts', -1)
redis.call('ZREM', KEYS[2], ARGV[3])
redis.call('LPUSH', KEYS[3], ARGV[3])
announce(KEYS[1], ARGV[3])
return 1
