-- reclaim: jobs whose lease ended (their worker died) go back to the front of the queue, or
-- fail once they have used every attempt.
-- KEYS[1] leases zset, KEYS[2] queue list, KEYS[3] finished zset, KEYS[4] hooks zset
-- ARGV[1] now (ms), ARGV[2] now (RFC 3339), ARGV[3] job key prefix, ARGV[4] max attempts,
-- ARGV[5] failure message, ARGV[6] retention (ms), ARGV[7] prefix of the small uploads' keys
-- (`<prefix>input:`; a failed job's is removed), ARGV[8] events channel
-- Returns a list of 'R<id>' (requeued) and 'F<id>' (failed).
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 100)
local out = {}
for _, id in ipairs(ids) do
  redis.call('ZREM', KEYS[1], id)
  local key = ARGV[3] .. id
  if redis.call('HGET', key, 'status') == 'processing' then
    local attempts = tonumber(redis.call('HGET', key, 'attempts') or '0')
    if attempts >= tonumber(ARGV[4]) then
      -- The same metadata a worker records for a failed attempt (the spec is only read).
      local spec = cjson.decode(redis.call('HGET', key, 'spec'))
      local metadata = cjson.encode({detected_mime = spec.mime, input_bytes = spec.input_bytes,
        error_kind = 'worker_lost', attempts = attempts})
      redis.call('HSET', key, 'status', 'failed', 'error_message', ARGV[5],
        'updated_at', ARGV[2], 'completed_at', ARGV[2], 'metadata', metadata)
      redis.call('ZADD', KEYS[3], ARGV[1], id)
      if redis.call('HGET', key, 'notify') == '1' then
        redis.call('HSET', key, 'hook_sent', '0')
        redis.call('ZADD', KEYS[4], ARGV[1], id)
      end
      redis.call('PEXPIRE', key, ARGV[6])
      redis.call('DEL', ARGV[7] .. id)
      announce(key, id)
      table.insert(out, 'F' .. id)
    else
      redis.call('HSET', key, 'status', 'pending', 'updated_at', ARGV[2])
      redis.call('LPUSH', KEYS[2], id)
      announce(key, id)
      table.insert(out, 'R' .. id)
    end
  end
end
return out
