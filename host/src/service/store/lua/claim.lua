-- claim: take the oldest pending job for a worker.
-- KEYS[1] queue (list), KEYS[2] leases (zset id -> lease end ms)
-- ARGV[1] job key prefix, ARGV[2] now (RFC 3339), ARGV[3] lease end (ms), ARGV[4] events channel
-- Pops ids until one is still `pending` (entries of deleted or already-taken jobs are dropped),
-- counts the attempt (the attempt number is the fencing token), marks it `processing` and
-- grants the lease. Returns {attempt, HGETALL...} or false when the queue is empty.
while true do
  local id = redis.call('LPOP', KEYS[1])
  if not id then
    return false
  end
  local key = ARGV[1] .. id
  if redis.call('HGET', key, 'status') == 'pending' then
    local attempt = redis.call('HINCRBY', key, 'attempts', 1)
    redis.call('HSET', key, 'status', 'processing', 'updated_at', ARGV[2])
    if redis.call('HEXISTS', key, 'metadata') == 0 then
      redis.call('HSET', key, 'metadata', '{}')
    end
    redis.call('ZADD', KEYS[2], ARGV[3], id)
    announce(key, id)
    local out = {attempt}
    for _, v in ipairs(redis.call('HGETALL', key)) do
      table.insert(out, v)
    end
    return out
  end
end
