-- renew: extend the lease of the current attempt.
-- KEYS[1] job hash, KEYS[2] leases zset
-- ARGV[1] attempt (fencing token), ARGV[2] lease end (ms), ARGV[3] job id
-- Returns 1, or 0 when the attempt is no longer the job's current processing attempt.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing'
  or redis.call('HGET', KEYS[1], 'attempts') ~= ARGV[1] then
  return 0
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
