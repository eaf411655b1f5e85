-- end_delivery: a delivery succeeded or was given up; record the outcome in the job.
-- KEYS[1] hooks zset, KEYS[2] job hash
-- ARGV[1] outcome JSON, ARGV[2] job id
redis.call('ZREM', KEYS[1], ARGV[2])
if redis.call('EXISTS', KEYS[2]) == 1 then
  redis.call('HSET', KEYS[2], 'webhook', ARGV[1])
  redis.call('HDEL', KEYS[2], 'hook_sent', 'hook_claims')
end
return 1
