-- finish: end the current attempt as `completed` or `failed`, atomically with queueing the
-- webhook delivery and starting the retention clock.
-- KEYS[1] job hash, KEYS[2] leases zset, KEYS[3] finished zset, KEYS[4] hooks zset,
-- KEYS[5] the job's small upload (removed: the job has ended)
-- ARGV[1] attempt (fencing token), ARGV[2] status, ARGV[3] error message ('' for none),
-- ARGV[4] metadata JSON, ARGV[5] now (RFC 3339), ARGV[6] now (ms), ARGV[7] retention (ms),
-- ARGV[8] job id, ARGV[9] events channel
-- Returns 1, or 0 when the attempt is no longer current (a newer attempt owns the job).
-- A replay of the finish that already ended this attempt (same status and completed_at: the
-- worker resends the same finish when the reply to the first was lost on the network)
-- returns 1 and changes nothing.
local status = redis.call('HGET', KEYS[1], 'status')
if redis.call('HGET', KEYS[1], 'attempts') == ARGV[1] and status == ARGV[2]
  and redis.call('HGET', KEYS[1], 'completed_at') == ARGV[5] then
  return 1
end
if status ~= 'processing' or redis.call('HGET', KEYS[1], 'attempts') ~= ARGV[1] then
  return 0
end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'metadata', ARGV[4],
  'updated_at', ARGV[5], 'completed_at', ARGV[5])
if ARGV[2] == 'completed' then
  redis.call('HSET', KEYS[1], 'progress', '100')
end
if ARGV[3] ~= '' then
  redis.call('HSET', KEYS[1], 'error_message', ARGV[3])
else
  redis.call('HDEL', KEYS[1], 'error_message')
end
redis.call('ZREM', KEYS[2], ARGV[8])
redis.call('ZADD', KEYS[3], ARGV[6], ARGV[8])
if redis.call('HGET', KEYS[1], 'notify') == '1' then
  redis.call('HSET', KEYS[1], 'hook_sent', '0')
  redis.call('ZADD', KEYS[4], ARGV[6], ARGV[8])
end
redis.call('PEXPIRE', KEYS[1], ARGV[7])
redis.call('DEL', KEYS[5])
announce(KEYS[1], ARGV[8])
return 1
