-- retry_delivery: schedule the next send of a delivery and record the outcome so far.
-- KEYS[1] hooks zset, KEYS[2] job hash
-- ARGV[1] sends made, ARGV[2] due (ms), ARGV[3] outcome JSON, ARGV[4] job id
if redis.call('EXISTS', KEYS[2]) == 0 then
  redis.call('ZREM', KEYS[1], ARGV[4])
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('HSET', KEYS[2], 'hook_sent', ARGV[1], 'webhook', ARGV[3])
return 1
