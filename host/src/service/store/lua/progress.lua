-- progress: raise the progress of the current attempt; never lowers it.
-- KEYS[1] job hash
-- ARGV[1] attempt (fencing token), ARGV[2] percent, ARGV[3] now (RFC 3339), ARGV[4] job id,
-- ARGV[5] events channel
-- Returns 1, or 0 when the attempt is no longer current.
if redis.call('HGET', KEYS[1], 'status') ~= 'processing'
  or redis.call('HGET', KEYS[1], 'attempts') ~= ARGV[1] then
  return 0
end
local old = tonumber(redis.call('HGET', KEYS[1], 'progress') or '0')
if tonumber(ARGV[2]) > old then
  redis.call('HSET', KEYS[1], 'progress', ARGV[2], 'updated_at', ARGV[3])
  announce(KEYS[1], ARGV[4])
end
return 1
