-- claim_delivery: take the webhook delivery due first, leasing it (its score moves to the
-- lease end, so a dispatcher that dies mid-send leaves it to be sent again).
-- KEYS[1] hooks zset (id -> due ms)
-- ARGV[1] now (ms), ARGV[2] lease end (ms), ARGV[3] job key prefix
-- Returns {id, sends made} or false.
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, 1)
if #ids == 0 then
  return false
end
local id = ids[1]
redis.call('ZADD', KEYS[1], ARGV[2], id)
local sent = redis.call('HGET', ARGV[3] .. id, 'hook_sent') or '0'
return {id, sent}
